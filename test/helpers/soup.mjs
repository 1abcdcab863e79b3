// Random tag soups for the property tests and `npm run fuzz` (plain JS so that both the suite
// and the fuzz script, which runs on the build without a TypeScript loader, use the same ones).
// Built from the dialect's own tags, so random inputs hit every state of the parser rather than
// mostly plain text; `call` adds whole tool calls with parameters, which loose pieces alone
// almost never form.
import fc from 'fast-check'

const TOOLS = ['read_file', 'write_to_file', 'execute_command', 'replace_in_file', 'attempt_completion']
const PARAMS = ['path', 'content', 'command', 'diff', 'result']
const NAMES = [...TOOLS, ...PARAMS, 'thinking', 'think', 'write_file', 'foo']

export const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NAMES).map((n) => `<${n}>`) },
  { weight: 6, arbitrary: fc.constantFrom(...NAMES).map((n) => `</${n}>`) },
  { weight: 2, arbitrary: fc.constantFrom(...NAMES).map((n) => `< ${n} >`) },
  { weight: 2, arbitrary: fc.constantFrom(...NAMES).map((n) => `</${n} >`) },
  { weight: 3, arbitrary: fc.constantFrom('<', '</', '>', '<read_fi', '</pa', '``', '```', '`', '\n```xml\n', '&amp;', '&lt;', '&#60;', '&am') },
  { weight: 4, arbitrary: fc.constantFrom(' ', '\n', '\r\n', '\t', 'a', 'x y', 'é', '😀', 'ü/😀.ts', 'Hello world', '  ') },
  { weight: 3, arbitrary: fc.string({ maxLength: 6 }) },
)

// fast-check caps arrays at about 10 elements unless told otherwise: `size: 'max'` lets them
// reach their maxLength
const pieces = (maxLength) => fc.array(piece, { maxLength, size: 'max' }).map((a) => a.join(''))

/** A tool call with 0–3 parameters whose values are soup themselves; its closing tag optional. */
export const call = fc.tuple(
  fc.constantFrom(...TOOLS),
  fc.array(fc.tuple(fc.constantFrom(...PARAMS), pieces(6), fc.constantFrom('', '\n')), { maxLength: 3, size: 'max' }),
  fc.boolean(),
).map(([tool, params, closed]) => `<${tool}>\n${params.map(([p, v, nl]) => `<${p}>${nl}${v}${nl}</${p}>\n`).join('')}${closed ? `</${tool}>` : ''}`)

/** A random message: soup pieces and whole tool calls. */
export const soup = fc.array(fc.oneof({ weight: 5, arbitrary: piece }, { weight: 1, arbitrary: call }), { maxLength: 40, size: 'max' }).map((a) => a.join(''))

/** The text cut at the given points (taken modulo its length, sorted, distinct). */
export function chunksOf(text, cuts) {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
  const out = []
  let last = 0
  for (const p of points) {
    if (p > last) out.push(text.slice(last, p))
    last = Math.max(last, p)
  }
  if (last < text.length) out.push(text.slice(last))
  return out
}

/** Cut points for chunking a text of up to `max` characters (as many as 15, not fast-check's ~10). */
export const cutsUpTo = (max) => fc.array(fc.nat(max), { maxLength: 15, size: 'max' })
