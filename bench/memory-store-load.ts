/** Synthetic memories for the memory store benchmark, and their bulk load into the PostgreSQL store's tables. */
import pg from 'pg';
import { memoryVectorSql } from '../src/client/access/postgres-memory/text-search.js';

/** A deterministic pseudo-random generator (mulberry32), so every run loads the same text. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const syllables = 'ka lo mi ren tas vo shi dru pel nor bex quin sa tor elu fim gar hod jun wex'.split(' ');

/**
 * `count` memories of about 60 words each from a vocabulary of 20,000 made-up words whose frequencies follow Zipf's
 * law (as words in real text do), each with one or two tags; queries are two words drawn the same way.
 */
export function syntheticMemories(count: number) {
  const vocabulary: string[] = [];
  const seen = new Set<string>();
  const pick = random(28);
  while (vocabulary.length < 20_000) {
    const length = 2 + Math.floor(pick() * 3);
    const word = Array.from({ length }, () => syllables[Math.floor(pick() * syllables.length)]!).join('');
    if (seen.has(word)) continue;
    vocabulary.push(word);
    seen.add(word);
  }
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 0; rank < vocabulary.length; rank++) cumulative.push((total += 1 / (rank + 1)));
  const zipfWord = (next: () => number) => {
    const target = next() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return vocabulary[low]!;
  };
  const text = (seed: number, words: number) => {
    const next = random(seed);
    return Array.from({ length: words }, () => zipfWord(next)).join(' ');
  };
  const memories = Array.from({ length: count }, (_, i) => {
    const next = random(i + 7);
    return { content: text(i, 60), tags: [...new Set([vocabulary[Math.floor(next() * 50)]!, zipfWord(next)])] };
  });
  return {
    memories,
    text,
    /** The word of this frequency rank (0: the most common). */
    word: (rank: number) => vocabulary[rank]!,
    query: (i: number) => text(500_000 + i, 2),
  };
}

/** Inserts the memories for one owner, numbered from 1, in multi-row inserts of 5,000, and sets the owner's counters. */
export async function loadMemories(databaseUrl: string, owner: string, memories: { content: string; tags: string[] }[]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const start = Date.now() - memories.length * 1000;
    for (let from = 0; from < memories.length; from += 5_000) {
      const batch = memories.slice(from, from + 5_000);
      await client.query(
        `INSERT INTO arbor_memories (owner, seq, content, tags, created_at, updated_at, session_id, updated_by, search)
         SELECT $1, seq, content, string_to_array(tags, ' '), at, at, 'bench', 'bench',
                ${memoryVectorSql('content', "string_to_array(tags, ' ')")}
         FROM unnest($2::bigint[], $3::text[], $4::text[], $5::timestamptz[]) AS rows(seq, content, tags, at)`,
        [
          owner,
          batch.map((_, i) => from + i + 1),
          batch.map((memory) => memory.content),
          batch.map((memory) => memory.tags.join(' ')),
          batch.map((_, i) => new Date(start + (from + i) * 1000)),
        ],
      );
    }
    await client.query(
      `INSERT INTO arbor_memory_owners (owner, next_seq, memory_count) VALUES ($1, $2, $3)
       ON CONFLICT (owner) DO UPDATE SET next_seq = EXCLUDED.next_seq, memory_count = EXCLUDED.memory_count`,
      [owner, memories.length + 1, memories.length],
    );
  } finally {
    await client.end();
  }
}
