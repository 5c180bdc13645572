/**
 * Modules the worker loads once and shares among every workflow it runs (the bundle's `preloadModules`): without this,
 * each cached session evaluated its own copy of zod, about 0.75 MB of heap per session.
 *
 * The worker deep-freezes what these modules export. Two consequences for workflow code:
 * - zod keeps its default locale and memoizer in a global config object that it fills on the first schema it builds,
 *   so one schema is built here, while that object can still be written;
 * - zod's string formats that test a regular expression zod exports (email, cuid, ipv4, base64, ...) reset that
 *   expression's lastIndex, which a frozen expression refuses: workflow schemas use `.regex()` with their own
 *   expression instead (test/unit/shared-modules.test.ts checks this).
 * The tz database's names (`tzdata`, about 200 KB, read by src/shared/time-zones.ts) are shared the same way, and so are
 * the libraries every session's modules import (issue 32: evaluated again for each new workflow, they were a fifth of
 * a sub-agent's extra worker CPU): cron-parser with luxon and cronstrue (cron jobs), MiniSearch (memory search). None
 * keeps state between calls that a workflow could see, and none writes to what it exports once loaded.
 */
import { CronExpressionParser } from 'cron-parser';
import cronstrue from 'cronstrue';
import MiniSearch from 'minisearch';
import tzdata from 'tzdata/tzdata.js';
import { z } from 'zod';

z.object({ warmUp: z.string() });

export { CronExpressionParser, cronstrue, MiniSearch, tzdata, z };
