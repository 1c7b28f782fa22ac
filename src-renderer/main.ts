import { mount } from 'svelte';
import App from './App.svelte';
import { createApi } from './lib/api/client.js';
import { API_CONTEXT } from './lib/api/context.js';
import { pickTransport } from './lib/api/pick-transport.js';
import './app.css';

const api = createApi(pickTransport());
mount(App, { target: document.getElementById('app')!, context: new Map([[API_CONTEXT, api]]) });
