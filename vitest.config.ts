import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const source = (entry: string) => fileURLToPath(new URL(`./src/${entry}.ts`, import.meta.url));

export default defineConfig({
  // The examples import the package by its name, as users do: here it is the source.
  resolve: {
    alias: [
      { find: /^arbor$/, replacement: source('index') },
      { find: /^arbor\/(client|tools|testing)$/, replacement: source('$1') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    // The cluster suite runs on its own cluster: npm run test:cluster (vitest.cluster.config.ts).
    exclude: [...configDefaults.exclude, 'test/cluster/**'],
    // Temporal's native bridge and workers are happier in child processes than in worker threads.
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/support/quiet-runtime.ts', 'test/support/prebuilt-bundle.ts'],
    // Tests talk to real servers and processes on a shared 2-core machine; the first run may also install binaries.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    teardownTimeout: 30_000,
    // 2-core machines: the dev server, test servers and workers need CPU too.
    maxWorkers: 2,
  },
});
