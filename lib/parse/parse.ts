/**
 * The pure parser: text in, blocks out, no I/O.
 * @module
 */
import type { Block, Diagnostic } from '../types.js'
import { Engine } from './engine.js'
import { resolveOptions, type ParseOptions } from './options.js'

/**
 * Blocks and diagnostics, returned when diagnostics are on.
 * @example
 * ```ts
 * const { blocks, diagnostics }: ParseResult = parseAssistantMessage('<write_file>', { diagnostics: true })
 * ```
 */
export interface ParseResult {
  /** The parsed blocks. */
  blocks: Block[]
  /** What the parser noticed, in order of offset of discovery. */
  diagnostics: Diagnostic[]
}

/**
 * Parses an assistant message (or a prefix of one, while it streams) into blocks.
 *
 * With the default `cline` profile the result is exactly the original Cline parser's: text
 * blocks, `tool_use` blocks with their params, the last block `partial: true` if the text ends
 * inside it. With `diagnostics` (or `profile: 'robust'`) it returns `{ blocks, diagnostics }`.
 *
 * Linear in the length of the text whatever the text; never throws on any text.
 * @example
 * ```ts
 * import { parseAssistantMessage } from 'tagstream'
 * parseAssistantMessage('Reading.\n<read_file>\n<path>src/a.ts</path>\n</read_file>')
 * // [ { type: 'text', content: 'Reading.', partial: false },
 * //   { type: 'tool_use', name: 'read_file', params: { path: 'src/a.ts' }, partial: false,
 * //     call_id: 'V1StGXR8', isNativeToolCall: false } ]
 * ```
 */
export function parseAssistantMessage(text: string, options: ParseOptions & { diagnostics: true }): ParseResult
export function parseAssistantMessage(text: string, options: ParseOptions & { profile: 'robust'; diagnostics?: undefined }): ParseResult
export function parseAssistantMessage(text: string, options?: ParseOptions): Block[]
export function parseAssistantMessage(text: string, options: ParseOptions = {}): Block[] | ParseResult {
  const o = resolveOptions(options)
  const engine = new Engine(o)
  engine.feed(String(text))
  if (options.final === true) engine.end()
  const blocks = engine.blocks(options.final === true)
  if (!o.diagnostics) return blocks
  return { blocks, diagnostics: [...engine.diagnostics, ...engine.endDiagnostics()] }
}
