/**
 * A live SDK stream as the events of one replay turn, so that {@link replayDiffs} gives its
 * block diffs, native tool calls included.
 * @module
 */
import type { ReplayEvent } from './events.js'
import { chunkEvent, type ModelChunk } from './openai.js'

/**
 * The chunks of one model response ({@link openAIChunks}, {@link anthropicChunks}) as the
 * events of one turn: `message`, a `chunk` / `tool` / `tool_end` event per chunk (time 0: a
 * live stream needs no pacing), `end`. With {@link replayDiffs}, text goes through the tag
 * parser and native tool calls become `tool_use` blocks with `isNativeToolCall: true`, after
 * the text before them (SPEC 8a).
 * @example
 * ```ts
 * import OpenAI from 'openai'
 * import { openAIChunks, modelTurnEvents, replayDiffs } from 'tagstream'
 * const stream = await new OpenAI().chat.completions.create({ model, messages, tools, stream: true })
 * for await (const d of replayDiffs(modelTurnEvents(openAIChunks(stream)))) console.log(JSON.stringify(d))
 * ```
 * @group Replay
 */
export async function* modelTurnEvents(
  chunks: AsyncIterable<ModelChunk> | Iterable<ModelChunk>,
  id = 'turn-1',
): AsyncGenerator<ReplayEvent, void, undefined> {
  yield { type: 'message', id }
  for await (const c of chunks) yield chunkEvent(c, 0)
  yield { type: 'end', id }
}
