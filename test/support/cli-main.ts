/** The CLI from source, for tests: `node --import tsx test/support/cli-main.ts <args>`. */
import { main } from '../../src/cli/main.js';

await main();
