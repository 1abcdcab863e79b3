/**
 * Block and diff types shared by every ring of tagstream. Pure data, no code.
 * @module
 */

/**
 * Prose between tool calls.
 * @example
 * ```ts
 * const b: TextBlock = { type: 'text', content: 'I will read it.', partial: false }
 * ```
 * @group Parsing
 */
export interface TextBlock {
  /** Discriminant. */
  type: 'text'
  /** The text, trimmed. */
  content: string
  /** `true` while the block may still grow. */
  partial: boolean
}

/**
 * One tool call, e.g. `<read_file><path>a.ts</path></read_file>`.
 * @example
 * ```ts
 * const b: ToolUseBlock = {
 *   type: 'tool_use', name: 'read_file', params: { path: 'a.ts' },
 *   partial: false, call_id: 'V1StGXR8', isNativeToolCall: false,
 * }
 * ```
 * @group Parsing
 */
export interface ToolUseBlock {
  /** Discriminant. */
  type: 'tool_use'
  /** The tool's name, one of the dialect's `tools`. */
  name: string
  /** Parameter values, trimmed, in the order they first appeared. */
  params: Record<string, string>
  /** `true` while the call may still grow; a partial call must never be executed. */
  partial: boolean
  /**
   * An id that stays the same for the life of a parser stream; for a native call, the
   * provider's id (`call_…`, `toolu_…`).
   */
  call_id: string
  /**
   * `false`: the call was written as tags in the text. `true`: the provider streamed it as a
   * native tool call (SPEC 8a); its params are the top-level keys of the argument object, a
   * string as it is, any other value `JSON.stringify(value)`.
   */
  isNativeToolCall: boolean
  /**
   * A tag call with the `truncation` option: the call was completed because the input ended, not
   * by its closing tag. A native call: its arguments were not a complete JSON object when the
   * call ended (diagnostic `invalid-tool-arguments`). Such a call is never executed by the
   * Presenter.
   */
  truncated?: true
}

/**
 * A model's reasoning, from a top-level `<thinking>…</thinking>` with the `reasoningTags` option,
 * or from a provider's reasoning stream.
 * @example
 * ```ts
 * const b: ReasoningBlock = { type: 'reasoning', reasoning: 'Read first.', partial: false }
 * ```
 * @group Parsing
 */
export interface ReasoningBlock {
  /** Discriminant. */
  type: 'reasoning'
  /** The reasoning text, trimmed. */
  reasoning: string
  /** `true` while the block may still grow. */
  partial: boolean
}

/**
 * Any block of a parsed assistant message.
 * @group Parsing
 */
export type Block = TextBlock | ToolUseBlock | ReasoningBlock

/**
 * Something the parser noticed without changing the blocks (the `diagnostics` option).
 * @example
 * ```ts
 * const d: Diagnostic = { code: 'unknown-tool', message: 'unknown tool tag <write_file>', offset: 12 }
 * ```
 * @group Parsing
 */
export interface Diagnostic {
  /** Stable machine-readable code; see {@link DiagnosticCode}. */
  code: DiagnosticCode
  /** Human-readable explanation. */
  message: string
  /** UTF-16 offset in the message text where the problem starts. */
  offset: number
}

/**
 * Stable diagnostic codes:
 * - `unknown-tool`: a tag outside a tool that looks like a tool call but names no tool of the dialect;
 * - `ignored-content`: non-blank text or an unknown tag inside a tool, outside any parameter, was dropped;
 * - `unclosed-tool`: the input ended inside a tool call;
 * - `unclosed-param`: the input ended inside a parameter value;
 * - `truncated-open-tag`: the input ended in the middle of an opening tool tag (`<execute_c`);
 * - `diagnostics-dropped`: the last one, when `maxDiagnostics` was reached: how many more were
 *   found and left out (its offset is the first one left out);
 * - `invalid-tool-arguments`: a native tool call ended with arguments that are not a complete JSON
 *   object (cut by the end of the turn, `max_tokens` or the log, or not an object at all); the
 *   block is completed with the params read so far and `truncated: true`, and is never run.
 *   Its `offset` is in the call's argument text.
 *
 * `ignored-content` also reports a native argument named `__proto__`, dropped (the offset of its
 * key in the argument text); the call is still run without it, as the original's params did.
 * @group Parsing
 */
export type DiagnosticCode =
  | 'unknown-tool'
  | 'ignored-content'
  | 'unclosed-tool'
  | 'unclosed-param'
  | 'truncated-open-tag'
  | 'diagnostics-dropped'
  | 'invalid-tool-arguments'

/**
 * Path of a string inside a block: `content` (text blocks), `reasoning` (reasoning blocks) or
 * `params.<name>` (tool blocks; any name but `__proto__`).
 * @group Parsing
 */
export type BlockPath = string

/**
 * `{op:'add'}`: a new block at `index`, which equals the current length.
 * @group Diffs
 */
export interface AddDiff {
  /** Discriminant. */
  op: 'add'
  /** Where the block goes: always the current length of the array. */
  index: number
  /** The new block. */
  block: Block
}

/**
 * `{op:'append'}`: the string at `path` of block `index` grew by `text`.
 * @group Diffs
 */
export interface AppendDiff {
  /** Discriminant. */
  op: 'append'
  /** The block that grew. */
  index: number
  /** `content`, `reasoning` or `params.<name>`. */
  path: BlockPath
  /** Only the new characters. */
  text: string
}

/**
 * `{op:'set'}`: the string at `path` of block `index` was set to `value` (a new param, or a change that is not an append).
 * @group Diffs
 */
export interface SetDiff {
  /** Discriminant. */
  op: 'set'
  /** The block that changed. */
  index: number
  /** `content`, `reasoning` or `params.<name>`. */
  path: BlockPath
  /** The whole new value. */
  value: string
}

/**
 * `{op:'complete'}`: block `index` is no longer partial.
 * @group Diffs
 */
export interface CompleteDiff {
  /** Discriminant. */
  op: 'complete'
  /** The block that completed. */
  index: number
}

/**
 * `{op:'truncate'}`: blocks from `length` on disappeared.
 * @group Diffs
 */
export interface TruncateDiff {
  /** Discriminant. */
  op: 'truncate'
  /** The new length of the array. */
  length: number
}

/**
 * `{op:'replace'}`: block `index` changed in another way and is given whole.
 * @group Diffs
 */
export interface ReplaceDiff {
  /** Discriminant. */
  op: 'replace'
  /** The block replaced. */
  index: number
  /** Its new value. */
  block: Block
}

/**
 * A change to a block array. Applying, in order, the diffs a {@link BlockParser} emits for a chunk
 * to the snapshot before it gives the snapshot after it.
 * @example
 * ```ts
 * const d: BlockDiff = { op: 'append', index: 0, path: 'content', text: ' world' }
 * ```
 * @group Diffs
 */
export type BlockDiff = AddDiff | AppendDiff | SetDiff | CompleteDiff | TruncateDiff | ReplaceDiff

/**
 * `{op:'message'}`: the diffs that follow belong to message `id` (replays of several messages).
 * @group Diffs
 */
export interface MessageMarker {
  /** Discriminant. */
  op: 'message'
  /** The message's id, unique in the stream. */
  id: string
  /** Facts about the message from the log (model, turn number, …), when known. */
  meta?: Record<string, unknown>
}

/**
 * `{op:'end'}`: message `id` has no more diffs.
 * @group Diffs
 */
export interface EndMarker {
  /** Discriminant. */
  op: 'end'
  /** The id given by the matching {@link MessageMarker}. */
  id: string
}

/**
 * `{op:'diagnostic'}`: a diagnostic among the diffs (opt-in with `diagnosticRecords`).
 * @group Diffs
 */
export interface DiagnosticRecord extends Diagnostic {
  /** Discriminant. */
  op: 'diagnostic'
}

/**
 * Everything that can travel between a BlockParser and a Presenter: diffs, message markers and
 * diagnostic records.
 * @group Diffs
 */
export type DiffRecord = BlockDiff | MessageMarker | EndMarker | DiagnosticRecord
