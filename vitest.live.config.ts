import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:live`: tests that watch live output arrive, in a headless browser (the web console) or on a CLI's
 * screen as the model streams, with several steps that must each show within a bounded time. They pass alone; in a
 * full run on a loaded 2-core machine some step waits too long, so they run on demand. Not part of `npm test`.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/e2e/console-browser.test.ts', 'test/e2e/cli-streaming.test.ts'],
    exclude: [...configDefaults.exclude],
  },
});
