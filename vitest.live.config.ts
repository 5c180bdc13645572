import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:live`: the web console in a headless browser alone (it is part of `npm test` too), for working on the
 * console's page.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/e2e/console-browser.test.ts'],
    exclude: [...configDefaults.exclude],
  },
});
