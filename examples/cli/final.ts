/**
 * `replay --final` and `replay --snapshots`: each turn's diffs applied, and the blocks printed,
 * once per turn or after every chunk that changed them. The diffs are applied in place (a
 * BlockAccumulator): the work per diff does not depend on the number of blocks, so a turn of
 * 100k blocks costs what its diffs weigh, not blocks × diffs.
 */
import { BlockAccumulator, type DiffRecord } from 'tagstream'

/** Collects a turn's blocks from its diffs; writes `{"id","meta"?,"blocks"}` at its end. */
export class FinalTurns {
  private id = ''
  private meta: Record<string, unknown> | undefined
  private readonly blocks = new BlockAccumulator()

  constructor(private readonly line: (s: string) => void) {}

  /** Takes one record. */
  push(r: DiffRecord): void {
    if (r.op === 'message') {
      this.id = r.id
      this.meta = r.meta
      this.blocks.reset()
    } else if (r.op === 'end') {
      const blocks = this.blocks.blocks
      this.line(JSON.stringify(this.meta === undefined ? { id: this.id, blocks } : { id: this.id, meta: this.meta, blocks }))
    } else if (r.op !== 'diagnostic') {
      this.blocks.apply(r)
    }
  }
}

/**
 * `replay --snapshots`: the markers as they come, and between them the turn's whole block array
 * after each chunk that changed it (what `parse --snapshots` prints, framed per turn). The output
 * is inherently blocks × chunks; the work besides it is linear: diffs applied in place, and only
 * the blocks changed since the last snapshot serialized again (the others' JSON is reused).
 */
export class SnapshotTurns {
  private readonly blocks = new BlockAccumulator()
  private changed = false

  constructor(private readonly line: (s: string) => void) {}

  /** Takes one record. */
  push(r: DiffRecord): void {
    if (r.op === 'message' || r.op === 'end' || r.op === 'diagnostic') {
      this.flush()
      if (r.op === 'message') this.blocks.reset()
      this.line(JSON.stringify(r))
    } else {
      this.blocks.apply(r)
      this.changed = true
    }
  }

  /** A chunk's records are all in: its snapshot, if the blocks changed. */
  flush(): void {
    if (!this.changed) return
    this.changed = false
    this.line(this.blocks.json())
  }
}
