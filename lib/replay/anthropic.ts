/**
 * Anthropic messages streams: the official SDK's raw stream events, or an SSE capture of the
 * same (`message_start`, `content_block_delta` with `text_delta` / `thinking_delta`, …,
 * `message_stop`).
 * @module
 */
import { Reporter, SYNTHETIC_INTERVAL_MS, isObject, type LogReadOptions, type LogSource, type ReplayEvent } from './events.js'
import { chunkEvent, type ModelChunk } from './openai.js'
import { anthropicToolChunk } from './native-sources.js'
import { flatten, mapBatches } from './source.js'
import { eventJson, sseEventBatches } from './sse.js'

/**
 * The chunk in one raw stream event: `text_delta` is text, `thinking_delta` is reasoning; a
 * `content_block_start` may already carry text. A `tool_use` block is a native tool call: its
 * start, its `input_json_delta` pieces and its stop are `tool_call` / `tool_end` chunks (`tools`
 * holds the keys of the message's tool blocks; a new one for each message). Signatures and the
 * other events carry nothing.
 * @internal
 * @group Replay
 */
export function anthropicDelta(event: unknown, tools: Set<string>): ModelChunk | null {
  if (!isObject(event)) return null
  const tool = anthropicToolChunk(event, tools)
  if (tool !== null) return tool
  if (event.type === 'content_block_delta' && isObject(event.delta)) {
    const d = event.delta
    if (d.type === 'text_delta' && typeof d.text === 'string' && d.text.length > 0) return { kind: 'text', text: d.text }
    if (d.type === 'thinking_delta' && typeof d.thinking === 'string' && d.thinking.length > 0) return { kind: 'reasoning', text: d.thinking }
    return null
  }
  if (event.type === 'content_block_start' && isObject(event.content_block)) {
    const b = event.content_block
    if (b.type === 'text' && typeof b.text === 'string' && b.text.length > 0) return { kind: 'text', text: b.text }
    if (b.type === 'thinking' && typeof b.thinking === 'string' && b.thinking.length > 0) return { kind: 'reasoning', text: b.thinking }
  }
  return null
}

/**
 * Adapts the official `@anthropic-ai/sdk` messages stream (`client.messages.create({ stream:
 * true, … })` or `client.messages.stream(…)`, both async iterables of raw events) to typed
 * chunks; `thinking_delta` becomes `reasoning`; a `tool_use` block becomes `tool_call` pieces
 * (keyed by the content block index, `id` and `name` on the first) and a `tool_end` at its stop.
 * Give them to {@link modelTurnEvents} and {@link replayDiffs} for block diffs with native calls.
 * @example
 * ```ts
 * import Anthropic from '@anthropic-ai/sdk'
 * import { anthropicChunks } from 'tagstream'
 * const stream = await new Anthropic().messages.create({ model, max_tokens: 1024, messages, stream: true })
 * for await (const c of anthropicChunks(stream)) console.log(c.kind, c.text)
 * ```
 * @group Replay
 */
export async function* anthropicChunks(stream: AsyncIterable<unknown>): AsyncGenerator<ModelChunk, void, undefined> {
  let tools = new Set<string>()
  for await (const event of stream) {
    if (isObject(event) && event.type === 'message_start') tools = new Set()
    const c = anthropicDelta(event, tools)
    if (c !== null) yield c
  }
}

/**
 * The text of an Anthropic SDK stream, ready for the BlockParser (thinking is left out: it is
 * not part of the tagged text).
 * @example
 * ```ts
 * import { Readable } from 'node:stream'
 * import { pipeline } from 'node:stream/promises'
 * import { anthropicText, createBlockParser } from 'tagstream'
 * const stream = await client.messages.create({ model, max_tokens: 1024, messages, stream: true })
 * await pipeline(Readable.from(anthropicText(stream)), createBlockParser(), presenter)
 * ```
 * @group Replay
 */
export async function* anthropicText(stream: AsyncIterable<unknown>): AsyncGenerator<string, void, undefined> {
  for await (const c of anthropicChunks(stream)) if (c.kind === 'text') yield c.text
}

/**
 * Reads an SSE capture of Anthropic messages streams, `tool_use` blocks included (as `tool` /
 * `tool_end` events). Each message (`message_start` …
 * `message_stop`) is a turn, so concatenated captures replay as several turns; chunks are
 * spaced {@link SYNTHETIC_INTERVAL_MS} apart. Unknown event types are passed over (the API adds
 * some from time to time); a payload that is not JSON, an `error` event, or a line outside the
 * SSE grammar fails the read with `ERR_BAD_LOG` naming the event number (or is skipped with a
 * warning, `onError: 'skip'`).
 * @example
 * ```ts
 * import { createReadStream } from 'node:fs'
 * import { readAnthropicSse } from 'tagstream'
 * for await (const e of readAnthropicSse(createReadStream('anthropic.sse'), { file: 'anthropic.sse' })) console.log(e)
 * ```
 * @group Replay
 */
export function readAnthropicSse(source: LogSource, options: LogReadOptions = {}): AsyncGenerator<ReplayEvent, void, undefined> {
  return flatten(anthropicSseBatches(source, options))
}

/**
 * {@link readAnthropicSse} in batches, one per input chunk. @internal
 * @group Replay
 */
export async function* anthropicSseBatches(source: LogSource, options: LogReadOptions = {}): AsyncGenerator<ReplayEvent[], void, undefined> {
  const report = new Reporter(options)
  let turn = 0
  let open: string | null = null
  let t = 0
  let tools = new Set<string>()
  yield* mapBatches(sseEventBatches(source, report), (e, out: ReplayEvent[]) => {
    const event = eventJson(e, report)
    if (event === undefined) return
    if (!isObject(event) || typeof event.type !== 'string') {
      return report.bad(`event ${e.n}`, 'expected a stream event object with a "type"', { event: e.n })
    }
    if (event.type === 'error') {
      const err = isObject(event.error) ? event.error : {}
      return report.bad(`event ${e.n}`, `the stream reported an error: ${String(err.message ?? err.type ?? 'unknown')}`, { event: e.n })
    }
    if (event.type === 'message_start' || (open === null && event.type.startsWith('content_block'))) {
      if (open !== null) out.push({ type: 'end', id: open })
      open = `turn-${++turn}`
      t = 0
      tools = new Set()
      const meta: Record<string, unknown> = {}
      const m = isObject(event.message) ? event.message : {}
      if (typeof m.id === 'string') meta.id = m.id
      if (typeof m.model === 'string') meta.model = m.model
      out.push({ type: 'message', id: open, meta })
    }
    if (event.type === 'message_stop') {
      if (open !== null) out.push({ type: 'end', id: open })
      open = null
      return
    }
    const c = anthropicDelta(event, tools)
    if (c !== null) {
      out.push(chunkEvent(c, t))
      if (c.kind !== 'tool_end') t += SYNTHETIC_INTERVAL_MS
    }
  })
  if (open !== null) yield [{ type: 'end', id: open }]
}
