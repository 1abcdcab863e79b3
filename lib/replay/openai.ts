/**
 * OpenAI chat-completions streams: the official SDK's chunk objects, or an SSE capture of the
 * same (`data: {"choices":[{"delta":{"content":…}}]}` … `data: [DONE]`).
 * @module
 */
import { Reporter, SYNTHETIC_INTERVAL_MS, isObject, type LogReadOptions, type LogSource, type ReplayEvent } from './events.js'
import { openAIToolChunks, type NativeChunk } from './native-sources.js'
import { flatten, mapBatches } from './source.js'
import { eventJson, sseEventBatches } from './sse.js'

/**
 * A piece of model text from an SDK stream: `text` for the tag parser, `reasoning` for a
 * provider's separate reasoning stream.
 * @example
 * ```ts
 * const c: ModelTextChunk = { kind: 'text', text: '<read_file>' }
 * ```
 * @group Replay
 */
export interface ModelTextChunk {
  /** `text` goes to the tag parser; `reasoning` becomes a reasoning block in a replay. */
  kind: 'text' | 'reasoning'
  /** The delta's text. */
  text: string
}

/**
 * A piece of model output from an SDK stream: text or reasoning ({@link ModelTextChunk}), or a
 * piece or the end of a native tool call ({@link ToolCallChunk}, {@link ToolEndChunk}).
 * @example
 * ```ts
 * const c: ModelChunk = { kind: 'tool_call', key: '0', id: 'call_1', name: 'read_file', args: '' }
 * ```
 * @group Replay
 */
export type ModelChunk = ModelTextChunk | NativeChunk

/**
 * The chunks in one chat-completion chunk object. Only choice 0 is read (with `n > 1` the other
 * choices are other answers, not parts of this one). `delta.content` is text;
 * `delta.reasoning_content` / `delta.reasoning` (sent by DeepSeek-style and OpenRouter-style
 * servers) is reasoning; `delta.tool_calls` are native tool calls, ended by the choice's
 * `finish_reason`. `last` keys the pieces of a provider that leaves out `index`.
 * @internal
 * @group Replay
 */
export function openAIDeltas(chunk: unknown, last: { key: string | undefined }): ModelChunk[] {
  if (!isObject(chunk) || !Array.isArray(chunk.choices)) return []
  const out: ModelChunk[] = []
  for (const c of chunk.choices as unknown[]) {
    if (!isObject(c) || (c.index !== undefined && c.index !== 0)) continue
    if (isObject(c.delta)) {
      const d = c.delta
      const reasoning = typeof d.reasoning_content === 'string' ? d.reasoning_content : d.reasoning
      if (typeof reasoning === 'string' && reasoning.length > 0) out.push({ kind: 'reasoning', text: reasoning })
      if (typeof d.content === 'string' && d.content.length > 0) out.push({ kind: 'text', text: d.content })
    }
    openAIToolChunks(c, last, out)
  }
  return out
}

/**
 * The replay event of one model chunk at time `t`. @internal
 * @group Replay
 */
export function chunkEvent(c: ModelChunk, t: number): ReplayEvent {
  switch (c.kind) {
    case 'tool_call': {
      const e: ReplayEvent = { type: 'tool', key: c.key, args: c.args, t }
      if (c.id !== undefined) e.id = c.id
      if (c.name !== undefined) e.name = c.name
      return e
    }
    case 'tool_end':
      return c.key === undefined ? { type: 'tool_end', cut: c.cut } : { type: 'tool_end', key: c.key, cut: c.cut }
    default:
      return { type: 'chunk', kind: c.kind, text: c.text, t }
  }
}

/**
 * Adapts the official `openai` SDK's chat-completions stream (`client.chat.completions.create({
 * stream: true, … })`, or any async iterable of its chunk objects) to typed chunks: text,
 * reasoning, and native tool calls (`tool_call` pieces keyed by the call's `index`, with `id`
 * and `name` on the first; a `tool_end` for all calls at the `finish_reason`). Give them to
 * {@link modelTurnEvents} and {@link replayDiffs} for block diffs with native calls.
 * @example
 * ```ts
 * import OpenAI from 'openai'
 * import { openAIChunks } from 'tagstream'
 * const stream = await new OpenAI().chat.completions.create({ model, messages, stream: true })
 * for await (const c of openAIChunks(stream)) console.log(c.kind, c.text)
 * ```
 * @group Replay
 */
export async function* openAIChunks(stream: AsyncIterable<unknown>): AsyncGenerator<ModelChunk, void, undefined> {
  const last = { key: undefined as string | undefined }
  for await (const chunk of stream) yield* openAIDeltas(chunk, last)
}

/**
 * The text of an OpenAI SDK stream, ready for the BlockParser (reasoning is left out: it is not
 * part of the tagged text).
 * @example
 * ```ts
 * import { Readable } from 'node:stream'
 * import { pipeline } from 'node:stream/promises'
 * import { openAIText, createBlockParser } from 'tagstream'
 * const stream = await client.chat.completions.create({ model, messages, stream: true })
 * await pipeline(Readable.from(openAIText(stream)), createBlockParser(), presenter)
 * ```
 * @group Replay
 */
export async function* openAIText(stream: AsyncIterable<unknown>): AsyncGenerator<string, void, undefined> {
  for await (const c of openAIChunks(stream)) if (c.kind === 'text') yield c.text
}

/**
 * Reads an SSE capture of OpenAI chat-completions streams, native `tool_calls` included (as
 * `tool` / `tool_end` events). Each completion is a turn: it ends
 * at `data: [DONE]` (or where the chunk `id` changes, or at the end of the capture), so
 * several captures concatenated replay as several turns. A capture has no timings: chunks are
 * spaced {@link SYNTHETIC_INTERVAL_MS} apart. A payload that is not JSON, an `error` payload,
 * or a line outside the SSE grammar fails the read with `ERR_BAD_LOG` naming the event number
 * (or is skipped with a warning, `onError: 'skip'`).
 * @example
 * ```ts
 * import { createReadStream } from 'node:fs'
 * import { readOpenAISse } from 'tagstream'
 * for await (const e of readOpenAISse(createReadStream('openai.sse'), { file: 'openai.sse' })) console.log(e)
 * ```
 * @group Replay
 */
export function readOpenAISse(source: LogSource, options: LogReadOptions = {}): AsyncGenerator<ReplayEvent, void, undefined> {
  return flatten(openAISseBatches(source, options))
}

/**
 * {@link readOpenAISse} in batches, one per input chunk. @internal
 * @group Replay
 */
export async function* openAISseBatches(source: LogSource, options: LogReadOptions = {}): AsyncGenerator<ReplayEvent[], void, undefined> {
  const report = new Reporter(options)
  let turn = 0
  let open: string | null = null
  let completionId: unknown
  let t = 0
  let last = { key: undefined as string | undefined }
  yield* mapBatches(sseEventBatches(source, report), (e, out: ReplayEvent[]) => {
    if (e.data.trim() === '[DONE]') {
      if (open !== null) out.push({ type: 'end', id: open })
      open = null
      return
    }
    const chunk = eventJson(e, report)
    if (chunk === undefined) return
    if (!isObject(chunk) || (!Array.isArray(chunk.choices) && !isObject(chunk.error))) {
      return report.bad(`event ${e.n}`, 'expected a chat.completion.chunk object with "choices"', { event: e.n })
    }
    if (isObject(chunk.error)) {
      return report.bad(`event ${e.n}`, `the stream reported an error: ${String(chunk.error.message ?? JSON.stringify(chunk.error))}`, { event: e.n })
    }
    if (open !== null && chunk.id !== undefined && completionId !== undefined && chunk.id !== completionId) {
      out.push({ type: 'end', id: open })
      open = null
    }
    if (open === null) {
      open = `turn-${++turn}`
      completionId = chunk.id
      t = 0
      last = { key: undefined }
      const meta: Record<string, unknown> = {}
      if (typeof chunk.id === 'string') meta.id = chunk.id
      if (typeof chunk.model === 'string') meta.model = chunk.model
      out.push({ type: 'message', id: open, meta })
    }
    for (const c of openAIDeltas(chunk, last)) {
      out.push(chunkEvent(c, t))
      if (c.kind !== 'tool_end') t += SYNTHETIC_INTERVAL_MS
    }
  })
  if (open !== null) yield [{ type: 'end', id: open }]
}
