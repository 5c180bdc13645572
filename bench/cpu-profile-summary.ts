/**
 * Where a fan-out's worker CPU goes, per sub-agent (issue 32): reads the CPU profiles `node --cpu-prof` wrote for every
 * thread of a `bench/fan-out.ts` run and the phases it wrote (BENCH_PHASES), and splits each thread's samples into the
 * Arbor and floor samples of one fan-out size. Prints self time per sub-agent by category and the top functions.
 *   BENCH_SAMPLES=3 BENCH_PHASES=/tmp/phases.json NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof" npx tsx bench/fan-out.ts 100
 *   npx tsx bench/cpu-profile-summary.ts /tmp/prof /tmp/phases.json 100
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}
interface Phase {
  side: 'arbor' | 'floor';
  children: number;
  start_us: number;
  end_us: number;
}

const [directory = '/tmp/prof', phasesFile = '/tmp/phases.json', childrenText = '100'] = process.argv.slice(2);
const children = Number(childrenText);
const phases = (JSON.parse(await readFile(phasesFile, 'utf8')) as Phase[]).filter((phase) => phase.children === children);
const units = { arbor: 0, floor: 0 };
for (const phase of phases) units[phase.side] += phase.children;

/** Attributes a sample by the frames above it too: module evaluation and the promise hook include what they call. */
function category(frame: ProfileNode['callFrame'], thread: string, ancestors: ProfileNode['callFrame'][]): string {
  const { functionName, url } = frame;
  if (functionName.startsWith('(')) return functionName;
  if (ancestors.some((above) => above.url.includes('workflow/vm-shared.js') && above.functionName === 'init'))
    return `${thread}: promise stack traces (SDK promise hook)`;
  if (ancestors.some((above) => above.url.includes('workflow-bundle-') && above.functionName === '__webpack_require__'))
    return `${thread}: workflow bundle, module evaluation`;
  // The SDK's promise hook: a stack trace captured, source-mapped and stored for every promise workflow code creates.
  if (/workflow\/vm-shared\.js|source_map_cache/.test(url) || functionName === 'get stack' || functionName === 'cutoffStackTrace')
    return `${thread}: promise stack traces (SDK promise hook)`;
  // A new workflow evaluates the bundle's modules again in its context: webpack's require and each module's top level.
  if (url.includes('workflow-bundle-') && (functionName.startsWith('__webpack_require__') || functionName.startsWith('../')))
    return `${thread}: workflow bundle, module evaluation`;
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (module) return `${thread}: ${module}`;
  if (url.startsWith('node:')) return `${thread}: node internals`;
  if (/\/src\//.test(url)) return `${thread}: arbor ${/\/src\/([^/]+)/.exec(url)?.[1]}`;
  if (/\/bench\/|\/test\//.test(url)) return `${thread}: bench and fake model`;
  if (url.includes('workflow-bundle-')) return `${thread}: workflow bundle, workflow code`;
  return `${thread}: ${url ? url.split('/').slice(-1)[0] : 'no url (workflow sandbox, native)'}`;
}

type Tally = Map<string, number>;
const byCategory = { arbor: new Map() as Tally, floor: new Map() as Tally };
const byFunction = { arbor: new Map() as Tally, floor: new Map() as Tally };
const add = (tally: Tally, key: string, us: number) => tally.set(key, (tally.get(key) ?? 0) + us);

for (const file of (await readdir(directory)).filter((name) => name.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(await readFile(join(directory, file), 'utf8')) as CpuProfile;
  // Node names profiles CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile; thread 0 is the main thread.
  const thread = file.split('.').at(-3) === '0' ? 'main' : 'worker thread';
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const ancestorsOf = (id: number) => {
    const frames: ProfileNode['callFrame'][] = [];
    for (let above = parents.get(id); above !== undefined; above = parents.get(above)) frames.push(nodes.get(above)!.callFrame);
    return frames;
  };
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    const interval = profile.timeDeltas[i + 1] ?? 0;
    const phase = phases.find((candidate) => at >= candidate.start_us && at < candidate.end_us);
    if (!phase) continue;
    const frame = nodes.get(profile.samples[i]!)!.callFrame;
    if (frame.functionName === '(idle)') continue;
    add(byCategory[phase.side], category(frame, thread, ancestorsOf(profile.samples[i]!)), interval);
    const where = frame.url ? `${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}` : '';
    add(byFunction[phase.side], `${thread}: ${frame.functionName || '(anonymous)'} ${where}`, interval);
  }
}

const perUnit = (us: number, side: 'arbor' | 'floor') => Math.round((us / 1000 / Math.max(1, units[side])) * 1000) / 1000;
const total = (tally: Tally) => [...tally.values()].reduce((sum, us) => sum + us, 0);
console.log(
  `fan-out of ${children}: ${phases.length} phases; profiled CPU per sub-agent: Arbor ${perUnit(total(byCategory.arbor), 'arbor')} ms, floor ${perUnit(total(byCategory.floor), 'floor')} ms`,
);
const categories = [...new Set([...byCategory.arbor.keys(), ...byCategory.floor.keys()])]
  .map((key) => ({
    category: key,
    arbor_ms: perUnit(byCategory.arbor.get(key) ?? 0, 'arbor'),
    floor_ms: perUnit(byCategory.floor.get(key) ?? 0, 'floor'),
  }))
  .map((row) => ({ ...row, extra_ms: Math.round((row.arbor_ms - row.floor_ms) * 1000) / 1000 }))
  .sort((a, b) => b.arbor_ms - a.arbor_ms)
  .slice(0, 20);
console.table(categories);
for (const side of ['arbor', 'floor'] as const) {
  console.log(`top functions (self ms per sub-agent), ${side}:`);
  console.table(
    [...byFunction[side].entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25)
      .map(([name, us]) => ({ function: name.slice(0, 110), ms: perUnit(us, side) })),
  );
  console.log(`top functions of the workflow bundle (self ms per sub-agent), ${side}:`);
  console.table(
    [...byFunction[side].entries()]
      .filter(([name]) => name.includes('workflow-bundle-'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, 30)
      .map(([name, us]) => ({ function: name.replace(/^worker thread: /, '').slice(0, 110), ms: perUnit(us, side) })),
  );
}
