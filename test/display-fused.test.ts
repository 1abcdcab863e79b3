// A BlockParser piped into a Presenter hands it each record directly, with the run of the
// parser's field it is cut from; the Display keeps prose back (its lag) and cleans only what has
// `<`. These properties hold every update of a text block made that way to the pure cleaning of
// the text parsed so far, over messages full of `<` in every role, entities, blank runs and tool
// calls, cut into chunks of every size, with and without the robust options.
import t from 'tap'
import fc from 'fast-check'
import { once } from 'node:events'
import { cleanDisplayText, createBlockParser, createPresenter, parseAssistantMessage, type ParseOptions, type SayMessage } from '../lib/index.js'
import { cutBySizes } from './helpers/arb.js'

const piece = fc.constantFrom(
  'word ', 'plan it ', 'a', ' ', '  ', '\n', '\n\n', 'x.y, ', 'é', '3',
  '<', '</', '1 < 2 ', 'a <b c', '<thinking>', '</thinking>', '<think>', '</think>', '<function_calls>', '</function_calls>',
  '<read_fi', '<read_file>', '<path>a.ts</path>', '</read_file>', '&lt;', '&amp;', '&', '&l', 't;', '```xml', '>', '<<', '< ',
)
const message = fc.array(piece, { minLength: 1, maxLength: 40 }).map((ps) => ps.join(''))
const options = fc.constantFrom<ParseOptions>({}, { profile: 'robust' }, { decodeEntities: true }, { codeFences: true })

/**
 * Streams `s`, cut by `sizes` in turn, through a BlockParser piped into a Presenter; every partial
 * text update is checked against the parse of what was written (`synced`) or, while records wait
 * behind a tool (`asyncTools`: the executor returns a promise), against the Presenter's own blocks.
 */
async function check(s: string, sizes: number[], opts: ParseOptions, asyncTools = true): Promise<{ checked: number; synced: number }> {
  let sent = ''
  let synced = 0
  let ending = false
  let checked = 0
  let failure: string | null = null
  const parser = createBlockParser(opts)
  const p = createPresenter({
    parallelToolCalls: true,
    // a sync executor's attempt ends within the write; an async one's records queue meanwhile
    executeTool: asyncTools ? () => Promise.resolve('ok') : () => 'ok',
    say: (m: SayMessage) => {
      if (!m.partial || m.type !== 'text' || failure !== null) return
      // a fused parser hands each record over while its chunk is written: with nothing queued
      // on either side, the blocks so far are the parse of what was written (at the end of input,
      // the final parse: what was held back as a possible tag is released, in an append before
      // the block completes). While a tool ran asynchronously, records queued: the update then
      // shows the Presenter's own blocks, those of an earlier point of the stream
      const inStep = parser.readableLength === 0 && p.writableLength === 0
      if (inStep) synced++
      const block = inStep ? parseAssistantMessage(sent, { ...opts, final: ending })[p.cursor] : p.blocks[p.cursor]
      const want = block !== undefined && block.type === 'text' ? cleanDisplayText(block.content, true) : undefined
      checked++
      if (m.content !== want) failure = `update ${JSON.stringify(m.content)} after ${JSON.stringify(sent)}, want ${JSON.stringify(want)}`
    },
  })
  parser.pipe(p)
  for (const c of cutBySizes(s, sizes)) {
    sent += c
    parser.write(c)
  }
  ending = true
  parser.end()
  await once(p, 'finish')
  if (failure !== null) throw new Error(`${failure} (message ${JSON.stringify(s)}, options ${JSON.stringify(opts)})`)
  return { checked, synced }
}

t.test('every partial text update through a fused BlockParser is the cleaning of the text parsed so far (property)', async (t) => {
  let checked = 0
  let synced = 0
  await fc.assert(fc.asyncProperty(message, fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 5 }), options, fc.boolean(), async (s, sizes, opts, asyncTools) => {
    const r = await check(s, sizes, opts, asyncTools)
    checked += r.checked
    synced += r.synced
  }), { numRuns: 400 })
  t.ok(checked > 1000, `updates checked (${checked})`)
  t.ok(synced > checked / 2, `most against the parse of what was written (${synced})`)
})

t.test('prose after a `<`, a joined chunk and a stray `<` in a later chunk: each update as cleaned', async (t) => {
  // chunks that end in a blank put it before the next chunk's text (a joined string), past a `<`
  // shown long before; then a `<` arrives in a chunk that the session still takes whole
  const s = 'See 1 < 2 here and then some more words follow here and there, x <y and more plain words to end.'
  for (const sizes of [[1], [3], [7], [16], [5, 11]]) t.ok((await check(s, sizes, {})).synced > 0, `chunks of ${sizes.join(', ')}`)
})

t.test('after a tool ran asynchronously, the records that queued meanwhile: each update as cleaned', async (t) => {
  const r = await check('<read_file></read_file>word <function_calls>', [1], {})
  t.ok(r.checked > r.synced, `some updates came while records were queued (${r.checked - r.synced} of ${r.checked})`)
})

t.test('after a tool ran synchronously, nothing queued: each update against the parse of what was written', async (t) => {
  const r = await check('<read_file></read_file>word <function_calls>', [1], {}, false)
  t.ok(r.checked > 0, `updates checked (${r.checked})`)
  t.equal(r.synced, r.checked, 'every update came with nothing queued')
})
