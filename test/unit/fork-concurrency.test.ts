import { describe, expect, it } from 'vitest';
import { boundedMap } from '../../src/client/fork/concurrency.js';

describe("a fork's bounded reads and starts", () => {
  it('keep at most the limit in flight, start the next as one ends, and give the results in the order of the items', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await boundedMap(
      Array.from({ length: 20 }, (_, index) => index),
      async (item) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, (item % 3) * 5));
        inFlight--;
        return item * 2;
      },
      8,
    );
    expect(most).toBe(8);
    expect(results).toEqual(Array.from({ length: 20 }, (_, index) => index * 2));
  });
});
