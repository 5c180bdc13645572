import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Temporal's native bridge and workers are happier in child processes than in worker threads.
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/support/quiet-runtime.ts'],
    // Workflow tests talk to real servers; the first run may also install the Temporal binaries.
    testTimeout: 60_000,
    hookTimeout: 180_000,
    teardownTimeout: 30_000,
    // 2-core machines: the dev server, test servers and workers need CPU too.
    maxWorkers: 2,
  },
});
