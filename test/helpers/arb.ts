// Shared test helpers: the tag-soup arbitraries (soup.mjs), chunkings, ids.
import type { Block } from '../../lib/index.js'
import { DiffSession } from '../../lib/streams/session.js'

export { piece, call, soup, cutsUpTo, chunksOf } from './soup.mjs'

/** Fixed-size chunking. */
export function fixedChunks(text: string, size: number): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

/** Blocks without ids, as the conformance corpus writes them. */
export function strip(blocks: readonly Block[]): unknown[] {
  return blocks.map((b) => {
    if (b.type !== 'tool_use') return b
    const { call_id: _id, isNativeToolCall: _n, ...rest } = b
    return rest
  })
}

/** Everything an async iterable yields. */
export async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}

/** A deterministic id generator. */
export function counter(prefix = 'c'): () => string {
  let n = 0
  return () => `${prefix}${++n}`
}

/** `s` cut at the given points (each taken modulo `s.length + 1`; repeats and order do not matter). */
export function cutAt(s: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (s.length + 1)))].sort((a, b) => a - b)
  const out: string[] = []
  let from = 0
  for (const p of points) {
    out.push(s.slice(from, p))
    from = p
  }
  out.push(s.slice(from))
  return out
}

/** The blocks (without ids) after streaming the chunks through a DiffSession and ending. */
export function streamedBlocks(chunks: readonly string[], o: object): unknown[] {
  let blocks: Block[] = []
  const s = new DiffSession({ idGenerator: counter(), emit: 'snapshots', ...o }, { record: (r) => { blocks = r as Block[] }, diagnostic: () => {} })
  for (const c of chunks) s.push(c)
  s.end()
  return strip(blocks)
}
