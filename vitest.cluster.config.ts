import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:cluster`: Arbor's end-to-end scenarios on a multi-service Temporal cluster on PostgreSQL, brought up by
 * deploy/cluster/arbor-cluster.sh (the first run builds the server with Go: minutes). Not part of `npm test`.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/cluster/**/*.test.ts'],
    exclude: [...configDefaults.exclude],
    globalSetup: ['test/cluster/global-setup.ts'],
    // The first run builds the Temporal server from source.
    hookTimeout: 3_600_000,
    testTimeout: 600_000,
    maxWorkers: 1,
  },
});
