/**
 * The pure parser: text in, blocks out, no I/O.
 * @module
 */
import type { Block, Diagnostic } from '../types.js'
import { Engine } from './engine.js'
import { resolveOptions, type ParseOptions } from './options.js'

/**
 * Blocks and diagnostics, as {@link parseWithDiagnostics} returns them.
 * @example
 * ```ts
 * const { blocks, diagnostics }: ParseResult = parseWithDiagnostics('<write_file>')
 * ```
 * @group Parsing
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
 * inside it. It always returns the block array, whatever the options; for what the parser
 * noticed as well, use {@link parseWithDiagnostics}.
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
 * @group Parsing
 */
export function parseAssistantMessage(text: string, options: ParseOptions = {}): Block[] {
  // diagnostics change no block, and nobody would read them here
  return run(text, options, false).blocks(options.final === true)
}

/**
 * Parses like {@link parseAssistantMessage} and also reports what the parser noticed (SPEC 4:
 * `unknown-tool`, `ignored-content`, `unclosed-tool`, `unclosed-param`, `truncated-open-tag`, and
 * `diagnostics-dropped` past `maxDiagnostics`), whatever the `diagnostics` option says. The blocks are the same as parseAssistantMessage's
 * with the same options.
 * @example
 * ```ts
 * import { parseWithDiagnostics } from 'tagstream'
 * parseWithDiagnostics('Let me write it. <write_file><path>a</path>', { profile: 'robust' }).diagnostics
 * // [ { code: 'unknown-tool', message: '<write_file> is not a tool of this dialect…', offset: 17 }, … ]
 * ```
 * @group Parsing
 */
export function parseWithDiagnostics(text: string, options: ParseOptions = {}): ParseResult {
  const engine = run(text, options, true)
  return { blocks: engine.blocks(options.final === true), diagnostics: [...engine.diagnostics, ...engine.endDiagnostics()] }
}

/** The engine after feeding it `text` (and ending it if `final`), diagnostics on or off whatever the options say. */
function run(text: string, options: ParseOptions, diagnostics: boolean): Engine {
  const o = resolveOptions(options)
  o.diagnostics = diagnostics // the resolved options are a fresh object: the caller's stay as given
  const engine = new Engine(o)
  engine.feed(String(text))
  if (options.final === true) engine.end()
  return engine
}
