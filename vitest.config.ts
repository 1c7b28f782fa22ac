import { defineConfig } from 'vitest/config';

export default defineConfig({
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
