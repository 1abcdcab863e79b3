/**
 * The Presenter's display: turns the cursor block into UI updates (`say`, the `text` event,
 * `onToolPartial`), cleaning text incrementally and showing a block only when it changed.
 * @module
 */
import type { Block, ToolUseBlock } from '../types.js'
import { cutFenceOpener, TextCleaner } from './clean.js'
import type { Cadence } from './cadence.js'
import { settled, type Maybe } from './maybe.js'
import type { Snapshot } from './snapshot.js'

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
  listenerCount(event: 'text'): number
  emit(event: 'text', message: SayMessage): boolean
}

/** The Display's hooks and options, from the Presenter's options. @internal */
export interface DisplayHooks {
  say: ((message: SayMessage) => unknown) | undefined
  onToolPartial: ((block: ToolUseBlock) => unknown) | undefined
  cleanText: boolean
}

/** A private copy for a hook: the snapshot's partial blocks are updated in place. */
export function copyTool(b: ToolUseBlock): ToolUseBlock {
  const c: ToolUseBlock = { type: 'tool_use', name: b.name, params: { ...b.params }, partial: b.partial, call_id: b.call_id, isNativeToolCall: b.isNativeToolCall }
  if (b.truncated === true) c.truncated = true
  return c
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

  /**
   * @param snap - the blocks, synced before a hook reads a field
   * @param cadence - spacing of the updates
   * @param hooks - the Presenter's hooks and `cleanText`
   * @param events - where `text` events go
   */
  constructor(
    private readonly snap: Snapshot,
    private readonly cadence: Cadence,
    private readonly hooks: DisplayHooks,
    private readonly events: TextEvents,
  ) {}

  /** A new cursor block (or none): nothing of it was shown yet. */
  reset(b: Block | undefined): void {
    this.dirty = true
    this.shownAny = false
    this.shownHeadKind = -1
    this.shownTail = ''
    this.shownText = ''
    this.cadence.reset()
    if (b !== undefined && b.type === 'text') {
      this.snap.sync()
      this.cleaner.reset(b.content)
    }
  }

  /** The cursor block `b` grew by `text` at `path` (its content, for a text block). */
  appended(b: Block, path: string, text: string): void {
    this.dirty = true
    if (b.type === 'text') {
      if (path === 'content') this.cleaner.append(text)
      else this.cleaner.reset(b.content) // not reached with a checked diff: text blocks have one field
    }
  }

  /** The cursor block `b` changed otherwise (a `set`): its text is cleaned again. */
  changed(b: Block): void {
    this.dirty = true
    if (b.type === 'text') this.cleaner.reset(b.content)
  }

  /** The cursor block changed without a new text (it completed). */
  touched(): void {
    this.dirty = true
  }

  /** One UI update of the cursor block `b`, if it changed since the last one (and cadence allows). */
  show(b: Block): Maybe {
    if (b.type === 'tool_use') {
      const hook = this.hooks.onToolPartial
      if (!this.dirty || hook === undefined) return undefined
      if (this.cadence.deferred(this.shownAny)) return undefined
      this.dirty = false
      this.shownAny = true
      this.cadence.shown()
      this.snap.sync()
      return settled(hook(copyTool(b)))
    }
    let content: string
    if (b.type === 'reasoning') {
      if (!this.dirty) return undefined
      this.snap.sync()
      content = b.reasoning
    } else if (!this.hooks.cleanText) {
      if (!this.dirty) return undefined
      this.snap.sync()
      content = b.content
    } else if (!b.partial) {
      // the cleaner follows the cursor block's every change: no need to clean the whole text again
      content = cutFenceOpener(this.cleaner.display())
    } else {
      if (!this.dirty) return undefined
      const c = this.cleaner
      content = c.display()
      // the same head and tail: the same text, without comparing it; otherwise only texts of the
      // same length need a look
      const same = this.shownAny && (c.headKind === this.shownHeadKind && c.headVersion === this.shownHeadVersion && c.tailPart === this.shownTail
        || content.length === this.shownText.length && content === this.shownText)
      if (same) {
        this.dirty = false
        return undefined
      }
    }
    if (!this.shownAny && content.length === 0) {
      // nothing to show yet (a block that so far cleans to nothing)
      this.dirty = false
      return undefined
    }
    if (b.partial && this.cadence.deferred(this.shownAny)) return undefined
    this.dirty = false
    this.shownAny = true
    if (b.type === 'text' && b.partial && this.hooks.cleanText) {
      const c = this.cleaner
      this.shownHeadKind = c.headKind
      this.shownHeadVersion = c.headVersion
      this.shownTail = c.tailPart
      this.shownText = content
    }
    this.cadence.shown()
    return this.say({ type: b.type, content, partial: b.partial })
  }

  private say(message: SayMessage): Maybe {
    const events = this.events
    if (events.listenerCount('text') > 0) events.emit('text', message)
    const hook = this.hooks.say
    return hook === undefined ? undefined : settled(hook(message))
  }
}
