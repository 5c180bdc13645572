import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/** `npm run test:faults`: the fault-injection tests at full size (npm test runs them in a shortened form). */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/faults/**/*.test.ts'],
    env: { ARBOR_FAULT_SCALE: 'full' },
    testTimeout: 1_800_000,
  },
});
