import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Temporal's native bridge and workers are happier in child processes than in worker threads.
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/support/quiet-runtime.ts'],
    // Tests talk to real servers and processes on a shared 2-core machine; the first run may also install binaries.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    teardownTimeout: 30_000,
    // 2-core machines: the dev server, test servers and workers need CPU too.
    maxWorkers: 2,
  },
});
