// bench/results/<name>.svg, written by hand (no chart library): two bar panels, the share of the
// node:http ceiling of each read route with its target, and the one-client p99 of every route
// against the 50 ms line. Green: target met; red: missed; grey: no target on that bar.
import type { Row } from './measure-scenario.ts';
import { ratioOf } from './targets.ts';

const WIDTH = 960;
const LABEL = 380;
const BAR = 480;
const ROW = 22;
const COLORS = { pass: '#2f9e44', miss: '#e03131', none: '#868e96' };

const escape = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

function el(tag: string, attrs: Record<string, string | number>, body = ''): string {
  const list = Object.entries(attrs)
    .map(([k, v]) => `${k}="${escape(String(v))}"`)
    .join(' ');
  return `<${tag} ${list}>${body}</${tag}>`;
}

type Bar = { label: string; value: number; text: string; target?: number; pass?: boolean };

function panel(title: string, bars: Bar[], max: number, top: number): { svg: string; height: number } {
  const x = (v: number) => LABEL + (Math.min(v, max) / max) * BAR;
  const parts = [el('text', { x: 10, y: top + 16, 'font-weight': 'bold' }, escape(title))];
  bars.forEach((bar, i) => {
    const y = top + 28 + i * ROW;
    const color = bar.pass === undefined ? COLORS.none : bar.pass ? COLORS.pass : COLORS.miss;
    parts.push(el('text', { x: LABEL - 8, y: y + 14, 'text-anchor': 'end' }, escape(bar.label)));
    parts.push(el('rect', { x: LABEL, y: y + 3, width: Math.max(1, x(bar.value) - LABEL), height: ROW - 6, fill: color }));
    parts.push(el('text', { x: x(bar.value) + 6, y: y + 14 }, escape(bar.text)));
    if (bar.target !== undefined) {
      const tx = x(bar.target);
      parts.push(el('line', { x1: tx, x2: tx, y1: y, y2: y + ROW, stroke: '#212529', 'stroke-width': 2 }));
    }
  });
  const bottom = top + 28 + bars.length * ROW;
  parts.push(el('line', { x1: LABEL, x2: LABEL, y1: top + 24, y2: bottom, stroke: '#adb5bd' }));
  return { svg: parts.join('\n'), height: bottom - top + 16 };
}

export function renderSvg(rows: Row[], caption: string): string {
  const nominal = rows.filter((r) => !r.scenario.scale);
  const ratios = nominal
    .filter((r) => ratioOf(r) !== undefined)
    .map((r): Bar => {
      const ratio = ratioOf(r)!;
      const target = r.scenario.ratioTarget;
      return {
        label: r.scenario.label,
        value: ratio * 100,
        text: `${Math.round(ratio * 100)}%`,
        target: target === undefined ? undefined : target * 100,
        pass: target === undefined ? undefined : ratio >= target,
      };
    });
  const p99s = nominal.map((r): Bar => {
    const target = r.scenario.p99Target;
    return {
      label: r.scenario.label,
      value: r.latency.p99,
      text: `${r.latency.p99.toFixed(1)} ms`,
      target,
      pass: target === undefined ? undefined : r.latency.p99 < target,
    };
  });
  const first = panel('Requests per second, % of the node:http ceiling (32 connections; | target)', ratios, 100, 30);
  const maxP99 = Math.max(60, ...p99s.map((b) => b.value));
  const second = panel('p99 of one client, ms (| 50 ms target)', p99s, maxP99, 30 + first.height);
  const height = 30 + first.height + second.height;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="sans-serif" font-size="12">`,
    el('rect', { width: WIDTH, height, fill: '#ffffff' }),
    el('text', { x: 10, y: 18, fill: '#495057' }, escape(caption)),
    first.svg,
    second.svg,
    '</svg>',
    '',
  ].join('\n');
}
