// Laws of the parser on random tag soups (fast-check).
import t from 'tap'
import fc from 'fast-check'
import { parseAssistantMessage, type Block, type ParseOptions } from '../lib/index.js'
import { soup, counter } from './helpers/arb.js'

const profiles: [string, ParseOptions][] = [
  ['cline', {}],
  ['robust', { profile: 'robust', diagnostics: false }],
]

for (const [name, opts] of profiles) {
  t.test(`${name}: never throws; text blocks never empty; only the last block may be partial`, async (t) => {
    fc.assert(fc.property(soup, (s) => {
      const blocks = parseAssistantMessage(s, opts)
      blocks.forEach((b, i) => {
        if (b.type === 'text' && b.content.length === 0) throw new Error('empty text block')
        if (b.type === 'text' && b.content !== b.content.trim()) throw new Error('untrimmed text block')
        if (b.partial && i !== blocks.length - 1) throw new Error(`partial block ${i} is not last`)
      })
    }), { numRuns: 1500 })
    t.pass('held on 1500 soups')
  })

  t.test(`${name}: 3.8 stability, a complete block never changes in a longer prefix`, async (t) => {
    fc.assert(fc.property(soup, (s) => {
      let prev: Block[] = []
      for (let i = 0; i <= s.length; i++) {
        const next = parseAssistantMessage(s.slice(0, i), { ...opts, idGenerator: counter() })
        prev.forEach((b, k) => {
          if (!b.partial && JSON.stringify(next[k]) !== JSON.stringify(b)) {
            throw new Error(`block ${k} changed between prefix ${i - 1} and ${i}: ${JSON.stringify(b)} -> ${JSON.stringify(next[k])}`)
          }
        })
        prev = next
      }
    }), { numRuns: 300 })
    t.pass('held on every prefix of 300 soups')
  })
}

t.test('final parse completes everything and keeps complete blocks', async (t) => {
  fc.assert(fc.property(soup, (s) => {
    const open = parseAssistantMessage(s, { idGenerator: counter() })
    const fin = parseAssistantMessage(s, { idGenerator: counter(), final: true })
    if (fin.length !== open.length) throw new Error('final changed the block count')
    fin.forEach((b, i) => {
      if (b.partial) throw new Error('partial block after final')
      if (JSON.stringify({ ...open[i], partial: false }) !== JSON.stringify(b)) throw new Error('final changed a block beyond completing it')
    })
  }), { numRuns: 1000 })
  t.pass('held')
})
