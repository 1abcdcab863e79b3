/**
 * A block array that checked diffs are applied to in place, its growing field kept in a Rope:
 * the one copy of the blocks shared by the Presenter and the {@link BlockAccumulator}.
 *
 * `applyDiff` copies the array and the changed block on every diff, which is right for UIs that
 * compare by reference but makes a long message quadratic for a consumer that sees every diff; a
 * Snapshot owns its blocks (it copies what it receives), so it may mutate them.
 * @internal
 * @module
 */
import type { Block, BlockDiff } from '../types.js'
import { fieldAt } from '../diff/diff.js'
import { checkDiff, setParam } from '../diff/validate.js'
import { Rope } from '../parse/rope.js'
import type { TextRun } from '../parse/field.js'

/**
 * A private copy of a block that `checkBlock` accepted, so in-place updates never reach the
 * sender's objects (or a copy handed out). The params copy is a plain object with the same own
 * properties. @internal
 * @group Diffs
 */
export function cloneBlock(b: Block): Block {
  return b.type === 'tool_use' ? { ...b, params: { ...b.params } } : { ...b }
}

/**
 * Applies a diff already checked by `checkDiff` against `blocks` to them, in place: a param is
 * always written as an own property. @internal
 * @group Diffs
 */
export function applyChecked(blocks: Block[], diff: BlockDiff): void {
  switch (diff.op) {
    case 'add':
      blocks.push(cloneBlock(diff.block))
      return
    case 'truncate':
      blocks.length = diff.length
      return
    case 'replace':
      blocks[diff.index] = cloneBlock(diff.block)
      return
    case 'complete':
      blocks[diff.index]!.partial = false
      return
    default: {
      const b = blocks[diff.index]!
      if (b.type === 'text') b.content = diff.op === 'set' ? diff.value : b.content + diff.text
      else if (b.type === 'reasoning') b.reasoning = diff.op === 'set' ? diff.value : b.reasoning + diff.text
      else {
        const name = diff.path.slice(7)
        setParam(b.params, name, diff.op === 'set' ? diff.value : b.params[name] + diff.text)
      }
    }
  }
}

/**
 * The blocks of one message, updated in place. Appends to one field (the "open" field, the one
 * a stream grows) go to a {@link Rope} and reach the block only when something reads it: `+=` on
 * the block would keep one cons-string node per chunk alive, a chain every major GC walks.
 *
 * Owns: the array, the open field (block, path, rope) and whether the block lags behind it.
 * Reads of field values go through {@link Snapshot.blocks} (synced); {@link Snapshot.live} is
 * the same array without the sync, for reading types, flags and lengths.
 * @internal
 */
export class Snapshot {
  private list: Block[] = []
  /** The block whose field at `openPath` grows in `rope`; the block's own value lags behind. */
  private openBlock: Block | null = null
  private openPath = ''
  /** The param name of an open tool field, cut from its path once (a sliced key per append is slow). */
  private openKey = ''
  /**
   * Changes whenever a field is opened or the open one is closed: a reader that saw the same
   * number knows the same field is open, without comparing paths (a diff's path is a new string
   * each time, and comparing it costs a builtin call).
   */
  private openSerial = 0
  /** Read whole only (`value`). */
  private readonly rope = new Rope('', false)
  /** The open block's field lags behind `rope`: see {@link Snapshot.sync}. */
  private stale = false
  /**
   * The open value's latest part, not copied into `rope` yet: `lent.coreSlice(lentFrom, lentEnd)`
   * (null: none), or that run without its end and then the tail (`lentTail`). A BlockParser
   * fused with the Presenter hands over, with each append that is a run of its own field's
   * value, that field and where the run starts ({@link TextRun}): the value is then already kept
   * there, and each append only moves `lentEnd` (a push to `rope` costs about 180 instructions a
   * 16-character piece, by callgrind, and a cons string). The run is cut once, when the value is
   * read or an append of another kind comes.
   */
  private lent: TextRun | null = null
  private lentFrom = 0
  /** Where the last run append ended, in the run's value. */
  private lentEnd = 0
  /**
   * How many characters at the end of the last run append went past the run's value (not the
   * run's yet: see `SessionOutput.append`): the run is `lentFrom` to `lentEnd - lentTail`, then
   * the last `lentTail` characters of `lentTailOf`, that append's text. A run append that goes on
   * from `lentEnd` says they became the run's own. Cut from the text only when the value is read:
   * the text is often a join (a cons string), which a cut on every such append flattened.
   */
  private lentTail = 0
  private lentTailOf = ''

  /** The live array with every field up to date; valid until the next change (do not modify it). */
  get blocks(): Block[] {
    this.sync()
    return this.list
  }

  /** The live array; the open field's value may lag behind (types, flags, params' presence are exact). */
  get live(): readonly Block[] {
    return this.list
  }

  /** How many blocks there are. */
  get length(): number {
    return this.list.length
  }

  /** Throws `ERR_INVALID_DIFF` unless `d` fits the blocks (nothing is changed either way). */
  check(d: unknown): asserts d is BlockDiff {
    checkDiff(d, this.list)
  }

  /**
   * Appends `text` to `b`'s field at `path` (`b` one of the blocks), opening that field if it is
   * not the open one. Returns `false`, having changed nothing, if `path` names no string field of
   * `b`: the check of an append whose index and text were checked already.
   *
   * With `run`, `text` is `run.coreSlice(from, from + text.length)`; or, with `from` negative,
   * `run.coreSlice(-1 - from, run.coreLength)` and then characters past the run's value so far,
   * which a later run append from where `text` ends turns into the run's own (see
   * {@link TextRun} and `SessionOutput.append`).
   */
  append(b: Block, path: string, text: string, run?: TextRun, from = 0): boolean {
    if (b !== this.openBlock || path !== this.openPath) {
      const v = fieldAt(b, path)
      if (v === undefined) return false
      this.sync()
      this.openBlock = b
      this.openPath = path
      this.openKey = b.type === 'tool_use' ? path.slice(7) : ''
      this.openSerial++
      this.rope.reset(v)
    }
    if (run !== undefined) {
      let at = from
      let tail = 0
      if (at < 0) {
        // the text ends past the run (a few hundred appends of a 200 KB stream)
        at = -1 - at
        tail = text.length - (run.coreLength - at)
      }
      if (run !== this.lent || at !== this.lentEnd) {
        if (this.lent !== null) this.takeLent()
        this.lent = run
        this.lentFrom = at
      }
      this.lentEnd = at + text.length
      if (tail > 0 || this.lentTail > 0) {
        this.lentTail = tail
        this.lentTailOf = tail > 0 ? text : ''
      }
    } else {
      if (this.lent !== null) this.takeLent()
      this.rope.push(text)
    }
    this.stale = true
    return true
  }

  /** Copies the lent run into `rope`: before `rope` is read, or takes another piece. */
  private takeLent(): void {
    const run = this.lent!
    this.lent = null
    const to = this.lentEnd - this.lentTail
    if (to > this.lentFrom) this.rope.push(run.coreSlice(this.lentFrom, to))
    if (this.lentTail > 0) {
      const of = this.lentTailOf
      this.rope.push(of.slice(of.length - this.lentTail))
      this.lentTail = 0
      this.lentTailOf = ''
    }
  }

  /**
   * Which field is open, if it is one of `b`'s: a number that stays the same while that field
   * stays open (see {@link Snapshot.openValue}), or -1 if no field of `b` is open.
   */
  openFieldOf(b: Block): number {
    return b === this.openBlock ? this.openSerial : -1
  }

  /** The param name of the open field, a tool block's (`''` for a text or reasoning block). */
  get openParam(): string {
    return this.openKey
  }

  /**
   * The open field's value, without writing it back to its block: for a reader that wants that
   * one value (there must be an open field: see {@link Snapshot.openFieldOf}).
   */
  openValue(): string {
    if (this.lent !== null) this.takeLent()
    return this.rope.value
  }

  /** Applies a diff that {@link Snapshot.check} accepted (an append included). */
  apply(d: BlockDiff): void {
    this.detach()
    applyChecked(this.list, d)
  }

  /** Brings the open block's field up to date: called before anything reads field values. */
  sync(): void {
    if (!this.stale) return
    this.stale = false
    const b = this.openBlock!
    if (this.lent !== null) this.takeLent()
    const value = this.rope.value
    if (b.type === 'text') b.content = value
    else if (b.type === 'reasoning') b.reasoning = value
    else setParam(b.params, this.openKey, value)
  }

  /** Starts over with no blocks (a new array: the old one is no longer changed). */
  reset(): void {
    this.detach()
    this.list = []
  }

  /** Copies of the current blocks (new arrays and objects) that later diffs do not change. */
  copy(): Block[] {
    this.sync()
    return this.list.map(cloneBlock)
  }

  /** Before a change that may touch the open field by another way than an append. */
  private detach(): void {
    this.sync()
    this.openBlock = null
    this.openPath = ''
    this.openSerial++
  }
}
