// The web UI's topology map in Debian's Chromium (playwright-core, headless): how long the first layout of
// a session's map takes for 200 and 1,000 nodes (nothing placed yet: force-directed up to 400 nodes, rings
// by kind above), and how smoothly a node of the 200-node map follows the pointer while it is dragged
// (frame intervals during the drag). The service runs in this process with a fresh data directory on
// 127.0.0.1 (test/e2e/helpers/browser.ts); the sessions are made through the API (bench/ui/sessions.ts),
// never by a scan, so no packet leaves loopback. Prints figures; asserts nothing.
//
//   node --import tsx bench/ui.ts [--runs 3] [--sizes 200,1000] [--shots]     (or ./build.sh bench ui)
//   --shots saves each size's map as test/e2e/screenshots/bench-map-<n>.png
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { openPage, screenshot, signIn, startUi } from '../test/e2e/helpers/browser.js';
import { makeSession } from './ui/sessions.js';

const { values } = parseArgs({ options: {
  runs: { type: 'string', default: '3' }, sizes: { type: 'string', default: '200,1000' }, shots: { type: 'boolean', default: false },
} });
const runs = Math.max(1, Number(values.runs));
const sizes = values.sizes.split(',').map(Number).filter((n) => n > 0);

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]!; };
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]!; };
const f1 = (n: number) => n.toFixed(1);

/** Opens the map and waits until it is drawn; returns the first layout's time (ms) as the page measured it. */
async function openMap(page: Page, id: string): Promise<number> {
  await page.goto(`/discovery/sessions/${id}/map`);
  await page.locator('.map-canvas canvas').first().waitFor({ timeout: 120_000 });
  await page.locator('.map-loading').waitFor({ state: 'detached', timeout: 120_000 });
  const t = await page.evaluate(`(() => { const s = performance.getEntriesByName('netprobe-map-layout-start').at(-1).startTime;
    return [performance.getEntriesByName('netprobe-map-created').at(-1).startTime - s, performance.getEntriesByName('netprobe-map-layout').at(-1).duration]; })()`) as number[];
  return t[1]!;
}

/** Drags the node nearest the canvas centre in `steps` pointer moves; frame intervals (ms) while it moves. */
async function dragFrames(page: Page, steps: number): Promise<{ frames: number[]; moved: number }> {
  const start = await page.evaluate(`(() => {
    const cy = document.querySelector('.map-canvas')._cyreg.cy;
    const w = cy.width() / 2, h = cy.height() / 2;
    let best = null, d = Infinity;
    cy.nodes().forEach((n) => { const p = n.renderedPosition(); const q = (p.x - w) ** 2 + (p.y - h) ** 2; if (q < d) { d = q; best = n; } });
    window.__dragged = best.id();
    window.__frames = [];
    const tick = (t) => { window.__frames.push(t); if (window.__frames.length < 100000 && !window.__stop) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    return best.renderedPosition();
  })()`) as { x: number; y: number };
  const box = (await page.locator('.map-canvas').boundingBox())!;
  await page.mouse.move(box.x + start.x, box.y + start.y);
  await page.mouse.down();
  for (let i = 1; i <= steps; i++) {
    const a = (i / steps) * Math.PI * 2;
    await page.mouse.move(box.x + start.x + Math.sin(a) * 120, box.y + start.y + (1 - Math.cos(a)) * 60);
  }
  await page.mouse.up();
  return page.evaluate(`(() => {
    window.__stop = true;
    const t = window.__frames; const out = [];
    for (let i = 1; i < t.length; i++) out.push(t[i] - t[i - 1]);
    const cy = document.querySelector('.map-canvas')._cyreg.cy;
    return { frames: out, moved: cy.getElementById(window.__dragged).position().x };
  })()`) as Promise<{ frames: number[]; moved: number }>;
}

const env = await startUi();
try {
  const a = await env.t.admin();
  await env.t.request('POST', '/api/setup/save', { key: a.key, body: { probe_name: 'bench-probe', timezone: 'UTC' } });
  const p = await openPage(env);
  await signIn(p.page, a.username, a.password);
  console.log(`topology map in ${await env.browser.version()} (headless), median of ${runs} runs`);
  for (const n of sizes) {
    const times: number[] = [];
    let edges = 0;
    for (let r = 0; r < runs; r++) {
      const s = await makeSession(env.t, a.key, n, `bench ${n} #${r + 1}`); // a fresh one: nothing placed yet
      edges = s.edges;
      times.push(await openMap(p.page, s.id));
    }
    if (values.shots) await screenshot(p.page, `bench-map-${n}`);
    console.log(`  first layout, ${n} nodes and ${edges} edges (${n > 400 ? 'concentric' : 'cose'}): median ${f1(median(times))} ms ` +
      `(min ${f1(Math.min(...times))}, max ${f1(Math.max(...times))})`);
    // Opened again once every position is saved (what a person sees after the first drag): no layout to run.
    const s = await makeSession(env.t, a.key, n, `bench ${n} placed`);
    await openMap(p.page, s.id);
    const positions = await p.page.evaluate(`Object.fromEntries(document.querySelector('.map-canvas')._cyreg.cy.nodes()
      .map((x) => [x.id(), { x: Math.round(x.position().x), y: Math.round(x.position().y) }]))`);
    const saved = await env.t.request('PATCH', `/api/v1sion/sessions/${s.id}`, { key: a.key, body: { positions } });
    if (saved.status !== 200) throw new Error(saved.text);
    const again: number[] = [];
    for (let r = 0; r < runs; r++) again.push(await openMap(p.page, s.id));
    console.log(`  opened with saved positions, ${n} nodes: median ${f1(median(again))} ms`);
  }
  const s = await makeSession(env.t, a.key, 200, 'bench drag');
  await openMap(p.page, s.id);
  const intervals: number[] = [];
  for (let r = 0; r < runs; r++) {
    const { frames } = await dragFrames(p.page, 60);
    intervals.push(...frames);
  }
  console.log(`  drag, 200 nodes: ${intervals.length} frames over ${runs} drags of 60 pointer moves; frame interval ` +
    `median ${f1(median(intervals))} ms, p95 ${f1(pct(intervals, 0.95))} ms, max ${f1(Math.max(...intervals))} ms ` +
    `(${intervals.filter((x) => x > 50).length} frames over 50 ms)`);
  const errors = p.errors.filter(Boolean);
  if (errors.length) console.log(`  console errors: ${errors.join(' | ')}`);
  await p.context.close();
} finally {
  await env.close();
}
