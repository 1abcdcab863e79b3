/**
 * The native tool calls of one assistant turn as blocks in the diff protocol (SPEC 8a): each
 * call is a `tool_use` block with `isNativeToolCall: true` and the provider's id, added when
 * its first delta arrives, grown by `set` / `append` diffs on `params.<name>` as its argument
 * JSON is read, and completed when the call ends: `complete` if the arguments are a complete
 * JSON object, else `replace` by the block with the params read so far and `truncated: true`,
 * with an `invalid-tool-arguments` diagnostic (the Presenter never runs such a block).
 *
 * Where a call's block goes is the caller's choice (`start` takes the index): the replay puts
 * it after the blocks of the turn so far, so blocks never move once added.
 * @internal
 * @module
 */
import type { BlockDiff, Diagnostic, ToolUseBlock } from '../types.js'
import { ArgumentAssembler, type ArgumentSink } from './args.js'

/** One call in progress. */
interface Call {
  readonly index: number
  readonly id: string
  name: string
  readonly args: ArgumentAssembler
  /** Ignored keys already reported. */
  reported: number
  ended: boolean
}

/**
 * What a provider says about a call when it starts.
 * @group Replay
 */
export interface NativeCallStart {
  /** The provider's call id (`call_…`, `toolu_…`), used as the block's `call_id`. */
  id: string
  /** The tool's name (may be `''` if the provider sends it later). */
  name: string
}

/**
 * The native calls of one turn, by the provider's key (OpenAI `index`, Anthropic content block
 * index, a history part's place). Diffs go to the `out` array of each call; diagnostics to the
 * `diagnostic` callback.
 * @internal
 * @group Replay
 */
export class NativeCalls {
  private readonly calls = new Map<string, Call>()
  /** Where the current piece's diffs go, and for which block. */
  private out: BlockDiff[] = []
  private index = 0
  private readonly sink: ArgumentSink = {
    set: (name, value) => void this.out.push({ op: 'set', index: this.index, path: this.path(name), value }),
    append: (name, text) => void this.out.push({ op: 'append', index: this.index, path: this.path(name), text }),
  }

  constructor(private readonly diagnostic: (d: Diagnostic) => void = () => undefined) {}

  /** Whether a call with this key was started in this turn. */
  has(key: string): boolean {
    return this.calls.has(key)
  }

  /** Whether the call with this key has ended. */
  ended(key: string): boolean {
    return this.calls.get(key)?.ended ?? false
  }

  /** Number of calls started. */
  get size(): number {
    return this.calls.size
  }

  /** Starts a call; its block is added at `index`, which must be the length of the block array. */
  start(key: string, call: NativeCallStart, index: number, out: BlockDiff[]): void {
    const c: Call = { index, id: call.id, name: call.name, args: new ArgumentAssembler(), reported: 0, ended: false }
    this.calls.set(key, c)
    out.push({ op: 'add', index, block: this.block(c, {}, true) })
  }

  /**
   * A name for a call that started without one (some providers send it in a later delta): the
   * block is replaced once. Later names are ignored, as the first is the call's.
   */
  name(key: string, name: string, out: BlockDiff[]): void {
    const c = this.calls.get(key)
    if (c === undefined || c.ended || c.name !== '' || name === '') return
    c.name = name
    out.push({ op: 'replace', index: c.index, block: this.block(c, c.args.params(), true) })
  }

  /**
   * A piece of the call's argument JSON. Returns `false` if the call is unknown or has ended;
   * text after the end is reported (`ignored-content`) and dropped, as the block is final.
   */
  args(key: string, text: string, out: BlockDiff[]): boolean {
    const c = this.calls.get(key)
    if (c === undefined) return false
    if (c.ended) {
      if (text.trim() !== '') {
        this.diagnostic({
          code: 'ignored-content',
          message: `native tool call ${JSON.stringify(c.name)} (${c.id}): argument text after the call ended was dropped`,
          offset: c.args.length,
        })
      }
      return false
    }
    this.out = out
    this.index = c.index
    c.args.push(text, this.sink)
    this.reportIgnored(c)
    return true
  }

  /**
   * The call is over. `cut` says the call did not end by its own end event (the turn or the
   * log ended, `max_tokens`): then even no argument text at all is incomplete, while a call
   * that ended normally with no argument text is a call without arguments.
   */
  end(key: string, cut: boolean, out: BlockDiff[]): void {
    const c = this.calls.get(key)
    if (c === undefined || c.ended) return
    c.ended = true
    const problem = c.args.end(!cut)
    if (problem === undefined) {
      out.push({ op: 'complete', index: c.index })
      return
    }
    out.push({ op: 'replace', index: c.index, block: this.block(c, c.args.params(), false) })
    this.diagnostic({
      code: 'invalid-tool-arguments',
      message: `native tool call ${JSON.stringify(c.name)} (${c.id}): ${problem.message}; it is marked truncated and will not be run`,
      offset: problem.offset,
    })
  }

  /** Ends every call still open (see {@link end}). */
  endAll(cut: boolean, out: BlockDiff[]): void {
    for (const key of this.calls.keys()) this.end(key, cut, out)
  }

  private lastName = ''
  private lastPath = 'params.'

  /** `params.<name>`, built once per run of diffs to one param (nearly all: one long value). */
  private path(name: string): string {
    if (name !== this.lastName) {
      this.lastName = name
      this.lastPath = `params.${name}`
    }
    return this.lastPath
  }

  private reportIgnored(c: Call): void {
    const ignored = c.args.ignored
    while (c.reported < ignored.length) {
      const x = ignored[c.reported++]!
      this.diagnostic({
        code: 'ignored-content',
        message: `native tool call ${JSON.stringify(c.name)} (${c.id}): the argument ${JSON.stringify(x.name)} was dropped (not a usable param name; the original's params dropped it too)`,
        offset: x.offset,
      })
    }
  }

  private block(c: Call, params: Record<string, string>, partial: boolean): ToolUseBlock {
    const b: ToolUseBlock = { type: 'tool_use', name: c.name, params, partial, call_id: c.id, isNativeToolCall: true }
    if (!partial) b.truncated = true
    return b
  }
}

/**
 * The params of a complete argument object as the original builds them: each own key, a string
 * value as it is, any other value `JSON.stringify(value)`; `__proto__` dropped (assigning a
 * string to it does nothing in the original). For inputs already parsed (a history's
 * `input`) and for checking the streaming result.
 * @internal
 * @group Replay
 */
export function convertArguments(input: Record<string, unknown>): Record<string, string> {
  const params: Record<string, string> = {}
  for (const key of Object.keys(input)) {
    if (key === '__proto__') continue
    const v = input[key]
    Object.defineProperty(params, key, { value: typeof v === 'string' ? v : JSON.stringify(v), writable: true, enumerable: true, configurable: true })
  }
  return params
}
