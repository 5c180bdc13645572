import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:live`: the test that watches live output arrive in a headless browser (the web console), with
 * several steps that must each show within a bounded time. It passes alone; in a full run on a loaded 2-core machine
 * some step waits too long, so it runs on demand. Not part of `npm test`.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/e2e/console-browser.test.ts'],
    exclude: [...configDefaults.exclude],
  },
});
