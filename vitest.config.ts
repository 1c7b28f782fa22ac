import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The renderer's state classes (*.svelte.ts, with runes) are compiled as the app's build does, so
  // test/unit/renderer can run them under Node; other files pass through untouched.
  plugins: [svelte({ compilerOptions: { runes: true } })],
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/packaging/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Integration tests share real services (keyring, PulseAudio, PTYs); keep files from stepping on each other.
    fileParallelism: true,
    reporters: ['default'],
  },
});
