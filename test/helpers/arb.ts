// Shared fast-check arbitraries: tag soups built from the dialect's own tags, so random inputs
// hit every state of the parser rather than mostly plain text.
import fc from 'fast-check'
import type { Block } from '../../lib/index.js'

const TOOLS = ['read_file', 'write_to_file', 'execute_command', 'replace_in_file', 'attempt_completion']
const PARAMS = ['path', 'content', 'command', 'diff', 'result']
const NAMES = [...TOOLS, ...PARAMS, 'thinking', 'think', 'write_file', 'foo']

export const piece: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NAMES).map((n) => `<${n}>`) },
  { weight: 6, arbitrary: fc.constantFrom(...NAMES).map((n) => `</${n}>`) },
  { weight: 2, arbitrary: fc.constantFrom(...NAMES).map((n) => `< ${n} >`) },
  { weight: 2, arbitrary: fc.constantFrom(...NAMES).map((n) => `</${n} >`) },
  { weight: 3, arbitrary: fc.constantFrom('<', '</', '>', '<read_fi', '</pa', '``', '```', '`', '\n```xml\n', '&amp;', '&lt;', '&#60;', '&am') },
  { weight: 4, arbitrary: fc.constantFrom(' ', '\n', '\r\n', '\t', 'a', 'x y', 'é', '😀', 'ü/😀.ts', 'Hello world', '  ') },
  { weight: 3, arbitrary: fc.string({ maxLength: 6 }) },
)

/** A random message made of tag-soup pieces. */
export const soup: fc.Arbitrary<string> = fc.array(piece, { maxLength: 40 }).map((a) => a.join(''))

/** Cut points for a text: sorted distinct offsets inside it. */
export function chunksOf(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
  const out: string[] = []
  let last = 0
  for (const p of points) {
    if (p > last) out.push(text.slice(last, p))
    last = Math.max(last, p)
  }
  if (last < text.length) out.push(text.slice(last))
  return out
}

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

/** A deterministic id generator. */
export function counter(prefix = 'c'): () => string {
  let n = 0
  return () => `${prefix}${++n}`
}
