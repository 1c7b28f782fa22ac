import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

export default defineConfig({
  root: 'src-renderer',
  // Relative asset URLs: the same build is loaded from file:// (Electron) and from /<token>/ (browser shell).
  base: './',
  plugins: [svelte({ compilerOptions: { runes: true } })],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    target: 'chrome120',
    sourcemap: true,
  },
});
