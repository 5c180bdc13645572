import { Command } from 'commander';
import type { MemoryRecord } from '../../shared/tools/memory.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, nonEmptyText, ownerId, positiveInteger, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { inFlagTerms, memoryTerms } from '../flag-terms.js';
import { withClient } from '../with-client.js';

interface MemoryFlags extends ConnectionFlags {
  owner: string;
  json?: boolean;
  tag?: string;
  limit?: number;
}

const withMemoryFlags = (command: Command) =>
  withConnectionFlags(command).option('--owner <id>', 'whose memories', ownerId, 'default').option('--json', 'print one JSON object');

function line(memory: MemoryRecord & { score?: number }): string {
  const score = memory.score === undefined ? '' : ` score ${memory.score}`;
  const tags = memory.tags.length > 0 ? ` [${memory.tags.join(', ')}]` : '';
  return `${memory.memory_id}${score}${tags} (${memory.created_at}, session ${memory.session_id})\n  ${memory.content.replace(/\n/g, '\n  ')}`;
}

const list = withMemoryFlags(new Command('list').description("list an owner's memories, newest first"))
  .option('--tag <tag>', 'only memories with this tag')
  .option('--limit <n>', 'at most this many (default 20)', positiveInteger('--limit'))
  .action(async (flags: MemoryFlags) => {
    const output = createOutput(Boolean(flags.json));
    await withClient(connectionSettingsFrom(flags), (client) =>
      inFlagTerms(memoryTerms, async () => {
        const listed = await client
          .memories(flags.owner)
          .list({ ...(flags.tag ? { tag: flags.tag } : {}), ...(flags.limit ? { limit: flags.limit } : {}) });
        output.result(
          { owner: flags.owner, ...listed },
          listed.memories.length === 0 ? `no memories for ${flags.owner}` : listed.memories.map(line).join('\n'),
        );
      }),
    );
  });

const search = withMemoryFlags(new Command('search').description("search an owner's memories by relevance"))
  .argument('<query>', 'what to look for', nonEmptyText('The query'))
  .option('--limit <n>', 'at most this many results (default 5)', positiveInteger('--limit'))
  .action(async (query: string, flags: MemoryFlags) => {
    const output = createOutput(Boolean(flags.json));
    await withClient(connectionSettingsFrom(flags), (client) =>
      inFlagTerms(memoryTerms, async () => {
        const results = await client.memories(flags.owner).search(query, flags.limit ? { limit: flags.limit } : {});
        output.result({ owner: flags.owner, query, results }, results.length === 0 ? 'no matching memories' : results.map(line).join('\n'));
      }),
    );
  });

const remove = withMemoryFlags(new Command('delete').description('delete one memory'))
  .argument('<memory-id>', 'the memory id (mem-N)', nonEmptyText('The memory id'))
  .action(async (memoryId: string, flags: MemoryFlags) => {
    const output = createOutput(Boolean(flags.json));
    await withClient(connectionSettingsFrom(flags), (client) =>
      inFlagTerms(memoryTerms, async () => {
        await client.memories(flags.owner).delete(memoryId);
        output.result({ owner: flags.owner, memory_id: memoryId, deleted: true }, `deleted ${memoryId}`);
      }),
    );
  });

export const memoryCommand = new Command('memory')
  .description("an owner's memories, shared by all their sessions: list, search, delete")
  .addCommand(list.exitOverride())
  .addCommand(search.exitOverride())
  .addCommand(remove.exitOverride());
