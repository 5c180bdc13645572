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
 *
 * Arbor's own plain modules of src/shared that every session evaluated again are shared too (issue 32): the check of a
 * session's input (`sessionInputProblem`, with src/shared/session.ts: every new session, sub-agents included, built the
 * whole input schema again and compiled its parser, about 2.5 ms of worker CPU each), the registry of built-in tools
 * and the tool profiles. They import nothing of Temporal's, keep no state but what `lazy` builds, and their exports are
 * constants or typed read-only. Their schemas are built on first use, after the freeze, and kept in `lazy` closures,
 * which the freeze cannot reach; tool definitions keep theirs in private fields (define-tool.ts).
 *
 * And so are the workflows' own modules (issue 32: 112 modules, src/workflows with the parts of src/shared it imports
 * and the few modules of @temporalio/workflow the SDK itself does not share yet, were evaluated again for each new
 * workflow, every sub-agent among them). The SDK already shares its own workflow modules this way (they keep a
 * workflow's state on its activator, not in module scope); Arbor's keep theirs in the objects each run creates
 * (`SessionState` and the like), and the few values a module kept for its workflow are kept as properties of the
 * workflow's globalThis, which the SDK keeps per workflow (workflow-local.ts). Their module scope only defines
 * functions, classes, constants and activity proxies (which do nothing until called), so it can run before any
 * workflow exists. What they export is frozen: nothing writes to it. Only index.ts is evaluated per workflow.
 */
import { CronExpressionParser } from 'cron-parser';
import cronstrue from 'cronstrue';
import MiniSearch from 'minisearch';
import tzdata from 'tzdata/tzdata.js';
import { z } from 'zod';
import { sessionInputProblem } from '../shared/session-input.js';
import { findTool } from '../shared/tools/registry.js';
import { toolProfiles } from '../shared/tools/profiles/index.js';
import { arborSession, arborSessionV2, arborSessionV3, sessionWorkflow } from './session-workflow.js';
import { memoryStoreWorkflow } from './memory-store-workflow.js';

z.object({ warmUp: z.string() });

export {
  arborSession,
  arborSessionV2,
  arborSessionV3,
  CronExpressionParser,
  cronstrue,
  findTool,
  memoryStoreWorkflow,
  MiniSearch,
  sessionInputProblem,
  sessionWorkflow,
  toolProfiles,
  tzdata,
  z,
};
