// bench/results/<name>.svg, written by hand (no chart library): two bar panels, the share of the
// node:http ceiling of each read route with its target, and the one-client p99 of every route
// against its target. Green: target met; red: missed; grey: no target on that bar.
import type { Row } from './measure-scenario.ts';
import { ratioOf } from './targets.ts';

const WIDTH = 960;
const LABEL = 380;
const BAR = 480;
const ROW = 22;
const COLORS = { pass: '#2f9e44', miss: '#e03131', none: '#868e96' };

const escapeXml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

function el(tag: string, attrs: Record<string, string | number>, body = ''): string {
  const list = Object.entries(attrs)
    .map(([k, v]) => `${k}="${escapeXml(String(v))}"`)
    .join(' ');
  return `<${tag} ${list}>${body}</${tag}>`;
}

type Bar = { label: string; value: number; text: string; target?: number; pass?: boolean };

/** Where a value falls on the bar axis, and the values to mark on it. */
type Scale = { at(value: number): number; ticks: number[]; unit: string };

const linear = (max: number, step: number, unit: string): Scale => ({
  at: (v) => Math.min(Math.max(v, 0), max) / max,
  ticks: Array.from({ length: Math.floor(max / step) + 1 }, (_, i) => i * step),
  unit,
});

/** Latencies span 1 ms to seconds: a log axis keeps the short ones readable. */
function logarithmic(max: number, unit: string): Scale {
  const decades = Math.max(2, Math.ceil(Math.log10(max)));
  return {
    at: (v) => Math.min(Math.max(Math.log10(Math.max(v, 1)) / decades, 0), 1),
    ticks: Array.from({ length: decades + 1 }, (_, i) => 10 ** i),
    unit,
  };
}

function panel(title: string, bars: Bar[], scale: Scale, top: number): { svg: string; height: number } {
  const x = (v: number) => LABEL + scale.at(v) * BAR;
  const parts = [el('text', { x: 10, y: top + 16, 'font-weight': 'bold' }, escapeXml(title))];
  bars.forEach((bar, i) => {
    const y = top + 28 + i * ROW;
    const color = bar.pass === undefined ? COLORS.none : bar.pass ? COLORS.pass : COLORS.miss;
    parts.push(el('text', { x: LABEL - 8, y: y + 14, 'text-anchor': 'end' }, escapeXml(bar.label)));
    parts.push(
      el('rect', {
        x: LABEL,
        y: y + 3,
        width: Math.max(1, x(bar.value) - LABEL),
        height: ROW - 6,
        fill: color,
      }),
    );
    parts.push(el('text', { x: x(bar.value) + 6, y: y + 14 }, escapeXml(bar.text)));
    if (bar.target !== undefined) {
      const tx = x(bar.target);
      parts.push(el('line', { x1: tx, x2: tx, y1: y, y2: y + ROW, stroke: '#212529', 'stroke-width': 2 }));
    }
  });
  const bottom = top + 28 + bars.length * ROW;
  for (const tick of scale.ticks) {
    const tx = x(tick);
    parts.push(el('line', { x1: tx, x2: tx, y1: top + 24, y2: bottom, stroke: '#dee2e6' }));
    parts.push(
      el('text', { x: tx, y: bottom + 14, 'text-anchor': 'middle', fill: '#495057' }, `${tick}${scale.unit}`),
    );
  }
  parts.push(el('line', { x1: LABEL, x2: LABEL, y1: top + 24, y2: bottom, stroke: '#adb5bd' }));
  return { svg: parts.join('\n'), height: bottom - top + 30 };
}

export function renderSvg(rows: Row[], caption: string[]): string {
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
  const top = 48;
  const ratioTitle = 'Requests per second, % of the node:http ceiling (32 connections; | target)';
  const first = panel(ratioTitle, ratios, linear(100, 25, '%'), top);
  const maxP99 = Math.max(100, ...p99s.map((b) => b.value));
  const p99Title = 'p99 of one client, ms, log scale (| target)';
  const second = panel(p99Title, p99s, logarithmic(maxP99, ' ms'), top + first.height);
  const height = top + first.height + second.height;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="sans-serif" font-size="12">`,
    el('rect', { width: WIDTH, height, fill: '#ffffff' }),
    ...caption.map((line, i) => el('text', { x: 10, y: 18 + i * 16, fill: '#495057' }, escapeXml(line))),
    first.svg,
    second.svg,
    '</svg>',
    '',
  ].join('\n');
}
