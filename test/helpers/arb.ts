// Shared test helpers: the tag-soup arbitraries (soup.mjs), chunkings, ids.
import fc from 'fast-check'
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

/** `text` cut into pieces of the given sizes, taken in turn. */
export function cutBySizes(text: string, sizes: readonly number[]): string[] {
  const out: string[] = []
  let i = 0
  let k = 0
  while (i < text.length) {
    const n = sizes[k++ % sizes.length]!
    out.push(text.slice(i, i + n))
    i += n
  }
  return out
}

/**
 * Pieces of an assistant message with every kind of block, a `<` that is no tag, and a call
 * left open: the stream tests that compare two ways of running the same pipeline join them.
 */
export const messagePiece: fc.Arbitrary<string> = fc.constantFrom(
  'Let me look. ', 'a < b and <br> ', '<thinking>plan</thinking>', 'Done.\n',
  '<read_file><path>src/a.ts</path></read_file>',
  '<write_to_file><path>b.ts</path><content>\nconst x = a < b\n<div>{x}</div>\n</content></write_to_file>',
  '<execute_command><command>ls</command><requires_approval>false</requires_approval></execute_command>',
  '<read_file><path>unfinished',
)

/** What a caller sees of one run of a pipeline, and whether the parser was fused at its start. */
export interface FusedRun {
  log: string[]
  fusedAtStart: boolean
}

/**
 * The property of the fusion tests: every setup runs fused and not fused, and both runs must
 * log the same. Returns how many fused runs were fused at their start (the property compares
 * something only if most were).
 */
export async function sameFusedOrNot<S>(setup: fc.Arbitrary<S>, run: (s: S, fused: boolean) => Promise<FusedRun>, numRuns: number): Promise<number> {
  let sawFused = 0
  await fc.assert(fc.asyncProperty(setup, async (s) => {
    const a = await run(s, true)
    const b = await run(s, false)
    if (a.fusedAtStart) sawFused++
    if (b.fusedAtStart) throw new Error('a run set up not to be fused was fused')
    if (JSON.stringify(a.log) !== JSON.stringify(b.log)) {
      throw new Error(`${JSON.stringify(s)}\nfused     ${JSON.stringify(a.log)}\nnot fused ${JSON.stringify(b.log)}`)
    }
  }), { numRuns })
  return sawFused
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
