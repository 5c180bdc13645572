/**
 * Tool profiles (issue 24, item 1): the size of the tool list a model request carries in each profile, with every
 * built-in tool of the profile served (webFetch and webSearch included). The specs are built as the callModel activity
 * builds them (`toolSpecs`, with the profile's description notes), and measured as the request body sends them (the
 * JSON of the `tools` array). Tokens are approximate: bytes / 3.5, the ratio of the issue's own estimate (about
 * 23 KB, some 6,500 tokens, for all 40 tools); no tokenizer is involved. The floor is `all`, the set every session
 * had before profiles, measured in the same run.
 *   npx tsx bench/profiles.ts
 */
import { toolSpecs } from '../src/activities/tool-specs.js';
import { profileNames, toolProfiles } from '../src/shared/tools/profiles/index.js';
import { toolNames } from '../src/shared/tools/registry.js';
import { writeResults } from './harness.js';

const bytesPerToken = 3.5;

const rows = profileNames.map((profile) => {
  // Skill and ToolSearch are sent only with a skills folder and deferred host tools: a plain session's request has neither.
  const names = toolNames.filter(
    (name) => (toolProfiles[profile].tools as readonly string[]).includes(name) && name !== 'Skill' && name !== 'ToolSearch',
  );
  const tools = toolSpecs(names, undefined, profile);
  const bytes = Buffer.byteLength(JSON.stringify(tools));
  const promptBytes = Buffer.byteLength(toolProfiles[profile].systemPrompt);
  return { profile, tools: tools.length, bytes, approx_tokens: Math.round(bytes / bytesPerToken), system_prompt_bytes: promptBytes };
});
const floor = rows.find((row) => row.profile === 'all')!;

console.log('profile   tools   spec bytes   ~tokens   vs all   system prompt bytes');
for (const row of rows) {
  const ratio = (row.bytes / floor.bytes).toFixed(2);
  console.log(
    `${row.profile.padEnd(8)}  ${String(row.tools).padStart(5)}   ${String(row.bytes).padStart(10)}   ${String(row.approx_tokens).padStart(7)}   ${ratio.padStart(5)}x   ${String(row.system_prompt_bytes).padStart(19)}`,
  );
}
const file = await writeResults('profiles', { bytes_per_token: bytesPerToken, floor: 'all', rows });
console.log(`\nwritten to ${file}`);
