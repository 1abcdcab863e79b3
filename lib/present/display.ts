/**
 * The Presenter's display: turns the cursor block into UI updates (`say`, the `text` event,
 * `onToolPartial`), cleaning text incrementally and showing a block only when it changed.
 * @module
 */
import type { Block, ToolUseBlock } from '../types.js'
import { addsVerbatim, cutFenceOpener, TextCleaner } from './clean.js'
import type { Cadence } from './cadence.js'
import { settled, type Maybe } from './maybe.js'
import type { Snapshot } from './snapshot.js'

/**
 * The most pieces the Display keeps back from the cleaner (see `Display.lag`): bounds the string
 * they are joined into, and the memory a long block without `<` would otherwise keep twice.
 */
const LAG_MAX = 128

/**
 * One UI update of a text or reasoning block, as given to `say` and the `text` event. `content`
 * is the block's whole display text so far, not a delta.
 * @example
 * ```ts
 * const m: SayMessage = { type: 'text', content: 'I will read the file', partial: true }
 * ```
 * @group Presenter
 */
export interface SayMessage {
  /** Which kind of block this shows. */
  type: 'text' | 'reasoning'
  /** The whole display text of the block (cleaned, for text blocks with `cleanText`). */
  content: string
  /** `true` while the block may still grow; the last update of a block has `false`. */
  partial: boolean
}

/** Where the `text` event goes (the Presenter). @internal */
export interface TextEvents {
  /** Whether a `text` listener exists. */
  textListened(): boolean
  emit(event: 'text', message: SayMessage): boolean
}

/** The Display's hooks and options, from the Presenter's options. @internal */
export interface DisplayHooks {
  say: ((message: SayMessage) => unknown) | undefined
  onToolPartial: ((block: ToolUseBlock) => unknown) | undefined
  cleanText: boolean
}

/**
 * The display state of the cursor block (the block being presented) and the updates it gives.
 * The Presenter tells it how the cursor block changed (`appended`, `changed`, `touched`, or a
 * new cursor block with `reset`) and asks for an update with `show`.
 *
 * Owns: the text cleaner of the cursor block, "changed since last shown" (`dirty`, and what was
 * last shown, by the cleaner's head, version and tail, or by the text itself), and the calls of
 * the hooks. Reads the blocks through the {@link Snapshot} (syncing only what a hook reads) and
 * asks the {@link Cadence} whether an update is due.
 *
 * Flags on the per-update path are tested as `x === true`, not `x`: V8 does not track that a
 * field holds only booleans, so optimised code tests a field's truthiness with its generic
 * sequence (false, '', undetectable, number, bigint: about ten instructions when it is true),
 * where a comparison with `true` is one (callgrind: ~30 instructions a diff of a 200 KB stream,
 * with the Presenter's own).
 * @internal
 */
export class Display {
  private readonly cleaner = new TextCleaner()
  /** The cursor block changed since its last update. */
  private dirty = true
  /** The cursor block had an update. */
  private shownAny = false
  private shownHeadKind = -1
  private shownHeadVersion = -1
  private shownTail = ''
  private shownText = ''
  /** Where the shown text lies in the cleaner's text (TextCleaner.sameText). */
  private shownGeneration = -1
  private shownFrom = 0
  private shownTo = 0
  /** The cleaner follows the cursor text block (false while nobody reads its display text). */
  private cleaning = false
  /**
   * The lag. While the cleaner appends verbatim ({@link TextCleaner.appendsVerbatim}), text
   * without `<`, or whose every `<` is dead within it (`a <= b`, `<br>`: see `addsVerbatim`),
   * adds itself, as it is, to the end of the display: the display is then the cleaner's last one
   * (`lagBase`) followed by the pieces appended since (`lag`), which are kept here instead of fed
   * to the cleaner one at a time. The cleaner takes them in one append (`catchUp`) before any
   * other piece, before a complete block is shown, or at LAG_MAX pieces. Most pieces of prose
   * then cost an `indexOf` and two concatenations, not the cleaner's append and display (about
   * 1,300 instructions for a 16-character piece, by callgrind). Taking the pieces whose `<` is
   * dead too halved the cleaner's appends on the bench's realistic message (627 to 331 a 200 KB
   * stream).
   */
  private lag = ''
  /** Pieces in `lag` (0: the cleaner has every piece). */
  private lagCount = 0
  /** `lag`'s length at the last update shown from it (-1: none since the lag began). */
  private lagShown = -1
  /** The cleaner's display, taken by the last update that asked for it. */
  private lagBase = ''
  /** `lagBase` is the cleaner's display now (nothing appended since), and it appends verbatim. */
  private lagReady = false
  /**
   * The params handed to `onToolPartial` for the cursor tool block: the Display's own object,
   * kept from one update to the next, its growing param read live (`null`: to be copied from the
   * block).
   */
  private toolParams: Record<string, string> | null = null
  /**
   * The field of the cursor tool block that `toolParams` reads live (an accessor, see
   * `liveParam`), as the Snapshot numbers its open field (-1: none).
   */
  private liveField = -1
  /**
   * The one field appended to since the last tool update, as the Snapshot numbers its open field
   * (`Snapshot.openFieldOf`; -1: none).
   */
  private toolField = -1
  /** Another field changed too: `toolParams` is copied again at the next update. */
  private toolStale = false

  // the hooks and options, read once per diff: kept here rather than behind `hooks` and
  // `cadence`, one load instead of two on the per-diff path
  private readonly sayHook: DisplayHooks['say']
  private readonly toolHook: DisplayHooks['onToolPartial']
  private readonly cleanText: boolean
  /** `cadenceMs > 0`: ask the Cadence before an update of a partial block. */
  private readonly paced: boolean

  /**
   * @param snap - the blocks, synced before a hook reads a field
   * @param cadence - spacing of the updates
   * @param hooks - the Presenter's hooks and `cleanText`
   * @param events - where `text` events go
   */
  constructor(
    private readonly snap: Snapshot,
    private readonly cadence: Cadence,
    hooks: DisplayHooks,
    private readonly events: TextEvents,
  ) {
    this.sayHook = hooks.say
    this.toolHook = hooks.onToolPartial
    this.cleanText = hooks.cleanText
    this.paced = cadence.ms > 0
  }

  /** A new cursor block (or none): nothing of it was shown yet. */
  reset(b: Block | undefined): void {
    this.dirty = true
    this.shownAny = false
    this.shownHeadKind = -1
    this.shownTail = ''
    this.shownText = ''
    this.shownGeneration = -1
    if (this.paced === true) this.cadence.reset()
    this.toolParams = null
    this.liveField = -1
    this.toolField = -1
    this.cleaning = false
    this.dropLag()
    if (b !== undefined && b.type === 'text' && this.cleanText && this.readers()) this.startCleaning(b)
  }

  /**
   * The cursor block `b` grew by `text` (at its content, for a text block). For a tool block, the
   * field that grew is the Snapshot's open field, unless the append was applied otherwise (then
   * the params are copied again).
   */
  appended(b: Block, text: string): void {
    this.dirty = true
    if (b.type === 'text') {
      if (this.cleaning === true && text.length > 0) this.clean(text)
    } else if (b.type === 'tool_use' && this.toolParams !== null) {
      const field = this.snap.openFieldOf(b)
      if (field === -1) this.toolStale = true
      else if (this.toolField === -1) this.toolField = field
      else if (field !== this.toolField) this.toolStale = true
    }
  }

  /** The cursor block `b` changed otherwise (a `set`): its text is cleaned again. */
  changed(b: Block): void {
    this.dirty = true
    if (b.type === 'text') {
      if (this.cleaning) this.startCleaning(b)
    } else this.toolStale = true
  }

  /** The cursor block changed without a new text (it completed). */
  touched(): void {
    this.dirty = true
  }

  /** One UI update of the cursor block `b`, if it changed since the last one (and cadence allows). */
  show(b: Block): Maybe {
    return b.type === 'tool_use' ? this.showTool(b) : this.showText(b)
  }

  private showTool(b: ToolUseBlock): Maybe {
    const hook = this.toolHook
    if (this.dirty !== true || hook === undefined) return undefined
    if (this.paced === true && this.cadence.deferred(this.shownAny)) return undefined
    this.dirty = false
    this.shownAny = true
    if (this.paced === true) this.cadence.shown()
    return settled(hook(this.toolView(b)))
  }

  private showText(b: Exclude<Block, ToolUseBlock>): Maybe {
    // read once per update: no caller code runs between here and the `emit`
    const listening = this.events.textListened()
    // nobody reads the display text: nothing to clean or build (a reader that comes later gets
    // the block's next update as its first)
    if (this.sayHook === undefined && !listening) return undefined
    let content: string
    let lagged = false
    if (b.type === 'reasoning') {
      if (this.dirty !== true) return undefined
      this.snap.sync()
      content = b.reasoning
    } else if (this.cleanText !== true) {
      if (this.dirty !== true) return undefined
      this.snap.sync()
      content = b.content
    } else if (b.partial !== true) {
      if (this.cleaning !== true) this.startCleaning(b)
      else if (this.lagCount > 0) this.catchUp()
      this.lagReady = false
      // the cleaner follows the cursor block's every change: no need to clean the whole text again
      content = cutFenceOpener(this.cleaner.display())
    } else {
      if (this.dirty !== true) return undefined
      if (this.cleaning !== true) this.startCleaning(b)
      if (this.lagCount > 0) {
        // the text only grew since the cleaner's last display (by the lag), unless by nothing
        if (this.lag.length === this.lagShown) {
          this.dirty = false
          return undefined
        }
        content = this.lagBase + this.lag
        lagged = true
      } else {
        const c = this.cleaner
        content = c.display()
        this.lagBase = content
        this.lagReady = c.appendsVerbatim
        // the same head and tail: the same text, without comparing it; otherwise only texts of the
        // same length need a look
        const same = this.shownAny === true && (c.headKind === this.shownHeadKind && c.headVersion === this.shownHeadVersion && c.tailPart === this.shownTail
          || content.length === this.shownText.length && (c.sameText(this.shownGeneration, this.shownFrom, this.shownTo, this.shownTail) ?? content === this.shownText))
        if (same) {
          this.dirty = false
          return undefined
        }
      }
    }
    if (this.shownAny !== true && content.length === 0) {
      // nothing to show yet (a block that so far cleans to nothing)
      this.dirty = false
      return undefined
    }
    if (b.partial === true && this.paced === true && this.cadence.deferred(this.shownAny)) return undefined
    this.dirty = false
    this.shownAny = true
    if (b.type === 'text' && b.partial === true && this.cleanText === true) {
      if (lagged) {
        // told in the cleaner's terms once it has the pieces (catchUp); until then, nothing matches
        this.shownHeadKind = -1
        this.shownGeneration = -1
        this.lagShown = this.lag.length
      } else this.noteShown()
      this.shownText = content
    }
    if (this.paced === true) this.cadence.shown()
    return this.say({ type: b.type, content, partial: b.partial }, listening)
  }

  /** Does anything read text updates (`say`, or a `text` listener)? */
  private readers(): boolean {
    return this.sayHook !== undefined || this.events.textListened()
  }

  /** What the cleaner's last display was, for comparing the next one with it. */
  private noteShown(): void {
    const c = this.cleaner
    this.shownHeadKind = c.headKind
    this.shownHeadVersion = c.headVersion
    this.shownTail = c.tailPart
    this.shownGeneration = c.generation
    this.shownFrom = c.headFrom
    this.shownTo = c.headTo
  }

  /** The cursor text block grew by `text` (not empty): to the cleaner, or to the lag. */
  private clean(text: string): void {
    if (this.lagCount > 0) {
      if (this.lagCount < LAG_MAX && (text.indexOf('<') < 0 || addsVerbatim(text))) {
        this.lag += text
        this.lagCount++
        return
      }
      this.catchUp()
    } else if (this.lagReady === true && (text.indexOf('<') < 0 || addsVerbatim(text))) {
      this.lag = text
      this.lagCount = 1
      this.lagShown = -1
      return
    }
    this.lagReady = false
    this.cleaner.append(text)
  }

  /**
   * The cleaner takes the lag in one append. If an update was shown from the lag, the cleaner's
   * display at that point (the same text: it appends verbatim) tells that update in its terms,
   * for the comparisons that follow (`sameText`).
   */
  private catchUp(): void {
    const lag = this.lag
    const shown = this.lagShown
    this.dropLag()
    const c = this.cleaner
    if (shown < 0) {
      c.appendVerbatim(lag)
      return
    }
    c.appendVerbatim(shown === lag.length ? lag : lag.slice(0, shown))
    c.display()
    this.noteShown()
    if (shown < lag.length) c.appendVerbatim(lag.slice(shown))
  }

  private dropLag(): void {
    this.lag = ''
    this.lagCount = 0
    this.lagShown = -1
    this.lagReady = false
  }

  /** The cleaner takes up the text block `b` as it stands. */
  private startCleaning(b: Block & { type: 'text' }): void {
    this.snap.sync()
    this.cleaner.reset(b.content)
    this.cleaning = true
    this.dropLag()
  }

  /**
   * The block given to `onToolPartial`: a new object per update, whose `params` is the Display's
   * own copy, kept from one update of the block to the next. The param that grows (the open
   * field) is an accessor that reads the Snapshot's value when read, so an update costs neither
   * a copy of the params, nor a write, nor the value's string when no hook reads it (issue 16:
   * "hand `onToolPartial` a view, not a copy"); the copy is taken again only when another field
   * changed.
   */
  private toolView(b: ToolUseBlock): ToolUseBlock {
    let params = this.toolParams
    if (params === null || this.toolStale === true || (this.toolField !== -1 && this.toolField !== this.liveField)) {
      this.snap.sync()
      params = this.toolParams = { ...b.params }
      const open = this.snap.openFieldOf(b)
      this.liveField = open
      if (open !== -1) this.liveParam(params, b, this.snap.openParam, open)
    }
    this.toolField = -1
    this.toolStale = false
    const v: ToolUseBlock = { type: 'tool_use', name: b.name, params, partial: b.partial, call_id: b.call_id, isNativeToolCall: b.isNativeToolCall }
    if (b.truncated === true) v.truncated = true
    return v
  }

  /**
   * Makes `params[key]` read the open field `field` of `b`: its growing value while it stays open,
   * then the block's own (a view kept past its call reads the block as it is then). A write turns
   * it back into a plain value of that object alone, and the next update copies the params again.
   * Own and enumerable, as the copied value was: spreads, `JSON.stringify` and comparisons see a
   * string. (`key` is an own param of `b`: the Snapshot opened it; no param is named __proto__.)
   */
  private liveParam(params: Record<string, string>, b: ToolUseBlock, key: string, field: number): void {
    const snap = this.snap
    Object.defineProperty(params, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        if (snap.openFieldOf(b) === field) return snap.openValue()
        snap.sync()
        return b.params[key]
      },
      set: (value: unknown) => {
        Object.defineProperty(params, key, { value, writable: true, enumerable: true, configurable: true })
        if (this.toolParams === params) this.toolStale = true
      },
    })
  }

  private say(message: SayMessage, listening: boolean): Maybe {
    if (listening) this.events.emit('text', message)
    const hook = this.sayHook
    return hook === undefined ? undefined : settled(hook(message))
  }
}
