/**
 * Native tool calls as the providers stream them (SPEC 8a), read into two kinds of chunk: a
 * piece of a call (its key in the turn; on its first piece, the provider's id and the tool's
 * name) and the end of a call. Used by the SDK adapters and the log readers.
 * @module
 */
import { isObject } from './events.js'

/**
 * A piece of a native tool call. `key` names the call within its turn (the OpenAI
 * `tool_calls[].index`, the Anthropic content block index, a history part's place); `id` and
 * `name` come with the call's first piece; `args` is a piece of its argument JSON (may be `''`).
 * @example
 * ```ts
 * const c: ToolCallChunk = { kind: 'tool_call', key: '0', id: 'call_abc', name: 'read_file', args: '{"pa' }
 * ```
 * @group Replay
 */
export interface ToolCallChunk {
  /** Discriminant. */
  kind: 'tool_call'
  /** The call's key within the turn. */
  key: string
  /** The provider's call id, on the call's first piece. */
  id?: string
  /** The tool's name, on the call's first piece. */
  name?: string
  /** A piece of the argument JSON. */
  args: string
}

/**
 * The end of native tool calls: the call `key`, or (no key) every call of the turn still open.
 * `cut` says the calls were stopped by a limit (`finish_reason: 'length'`), not finished: then
 * a call with no argument text is incomplete rather than a call without arguments.
 * @example
 * ```ts
 * const e: ToolEndChunk = { kind: 'tool_end', key: '1', cut: false }
 * ```
 * @group Replay
 */
export interface ToolEndChunk {
  /** Discriminant. */
  kind: 'tool_end'
  /** The call that ended; absent: every open call of the turn. */
  key?: string
  /** Stopped by a limit rather than finished. */
  cut: boolean
}

/**
 * Either native-call chunk.
 * @group Replay
 */
export type NativeChunk = ToolCallChunk | ToolEndChunk

/**
 * The native-call chunks of one OpenAI chat-completion choice delta (choice 0), in order:
 * `delta.tool_calls[]` pieces (keyed by `index`; a provider that omits it keys by `id`, or
 * continues the last call), the deprecated `delta.function_call` (one call without an id: the
 * replay's id generator names it), then, if the choice has a `finish_reason`, the end of every
 * call.
 * A call's `function.name` and `id` are passed on whenever present.
 * @internal
 * @group Replay
 */
export function openAIToolChunks(choice: Record<string, unknown>, last: { key: string | undefined }, out: { push(c: NativeChunk): unknown }): void {
  const d = isObject(choice.delta) ? choice.delta : {}
  if (Array.isArray(d.tool_calls)) {
    for (const tc of d.tool_calls as unknown[]) {
      if (!isObject(tc)) continue
      const f = isObject(tc.function) ? tc.function : {}
      let key: string | undefined
      if (typeof tc.index === 'number' && Number.isInteger(tc.index) && tc.index >= 0) key = String(tc.index)
      else if (typeof tc.id === 'string' && tc.id !== '') key = `id:${tc.id}`
      else key = last.key
      if (key === undefined) continue
      last.key = key
      const c: ToolCallChunk = { kind: 'tool_call', key, args: typeof f.arguments === 'string' ? f.arguments : '' }
      if (typeof tc.id === 'string' && tc.id !== '') c.id = tc.id
      if (typeof f.name === 'string' && f.name !== '') c.name = f.name
      out.push(c)
    }
  }
  // the deprecated single-call form (`functions` instead of `tools`): no id, one call per choice
  if (isObject(d.function_call)) {
    const f = d.function_call
    const c: ToolCallChunk = { kind: 'tool_call', key: 'function_call', args: typeof f.arguments === 'string' ? f.arguments : '' }
    if (typeof f.name === 'string' && f.name !== '') c.name = f.name
    out.push(c)
  }
  if (typeof choice.finish_reason === 'string') out.push({ kind: 'tool_end', cut: choice.finish_reason === 'length' })
}

/**
 * The native-call chunk of one Anthropic raw stream event: `content_block_start` with a
 * `tool_use` block starts a call (its `input`, `{}` when streaming, is used only if it already
 * holds keys), `input_json_delta` continues it, `content_block_stop` of a tool block ends it
 * (pieces and stops of other blocks are no calls).
 * `tools` holds the keys of the message's tool blocks (the caller clears it at
 * `message_start`). `null` for other events.
 * @internal
 * @group Replay
 */
export function anthropicToolChunk(event: Record<string, unknown>, tools: Set<string>): NativeChunk | null {
  const key = typeof event.index === 'number' ? String(event.index) : '0'
  if (event.type === 'content_block_start' && isObject(event.content_block) && event.content_block.type === 'tool_use') {
    const b = event.content_block
    const input = isObject(b.input) && Object.keys(b.input).length > 0 ? JSON.stringify(b.input) : ''
    tools.add(key)
    const c: ToolCallChunk = { kind: 'tool_call', key, args: input }
    if (typeof b.id === 'string') c.id = b.id
    if (typeof b.name === 'string') c.name = b.name
    return c
  }
  // a piece of a block never started has no call to go to
  if (event.type === 'content_block_delta' && isObject(event.delta) && event.delta.type === 'input_json_delta' && tools.has(key)) {
    return { kind: 'tool_call', key, args: typeof event.delta.partial_json === 'string' ? event.delta.partial_json : '' }
  }
  if (event.type === 'content_block_stop' && tools.has(key)) return { kind: 'tool_end', key, cut: false }
  return null
}
