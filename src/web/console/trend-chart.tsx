/**
 * The consent trend as a server-made SVG line chart (docs/web.md "Console"): one line each for the
 * attribute consents that read Allow, Disallow and AskMe at the end of each UTC day. No script and no
 * chart library: the SVG is part of the page, titled and described for screen readers, with the same
 * figures in a table beside it.
 */
import type { TrendBody } from '../../consent/index.js';

const W = 640;
const H = 200;
const PAD = { left: 44, right: 12, top: 12, bottom: 28 };
/** Line colours with at least 3:1 contrast on white (WCAG 2.2 1.4.11), told apart by dash too. */
const SERIES = [
  { key: 'Allow', colour: '#1d6b31', dash: '' },
  { key: 'Disallow', colour: '#a4000f', dash: '6 3' },
  { key: 'AskMe', colour: '#174a8b', dash: '2 3' },
] as const;

/** The chart of `trend.Days[*].Totals`. */
export function TrendChart({ trend }: { trend: TrendBody }) {
  const days = trend.Days;
  const max = Math.max(1, ...days.flatMap((d) => [d.Totals.Allow, d.Totals.Disallow, d.Totals.AskMe]));
  const x = (i: number) => PAD.left + (days.length <= 1 ? 0 : (i * (W - PAD.left - PAD.right)) / (days.length - 1));
  const y = (v: number) => PAD.top + (H - PAD.top - PAD.bottom) * (1 - v / max);
  const first = days[0]?.Date ?? '';
  const last = days.at(-1)?.Date ?? '';
  return (
    <figure>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby="trend-title trend-desc" class="chart">
        <title id="trend-title">Attribute consents by value, {`${first} to ${last}`}</title>
        <desc id="trend-desc">
          {`At the end of ${last}: Allow ${days.at(-1)?.Totals.Allow ?? 0}, Disallow ${days.at(-1)?.Totals.Disallow ?? 0}, AskMe ${days.at(-1)?.Totals.AskMe ?? 0}.`}
        </desc>
        <line x1={PAD.left} y1={y(0)} x2={W - PAD.right} y2={y(0)} stroke="#767676" />
        <line x1={PAD.left} y1={PAD.top} x2={PAD.left} y2={y(0)} stroke="#767676" />
        <text x={PAD.left - 6} y={y(max) + 4} text-anchor="end" font-size="11" fill="#1b1b1b">
          {String(max)}
        </text>
        <text x={PAD.left - 6} y={y(0) + 4} text-anchor="end" font-size="11" fill="#1b1b1b">
          0
        </text>
        <text x={PAD.left} y={H - 8} font-size="11" fill="#1b1b1b">
          {first}
        </text>
        <text x={W - PAD.right} y={H - 8} text-anchor="end" font-size="11" fill="#1b1b1b">
          {last}
        </text>
        {SERIES.map((s) => (
          <polyline
            key={s.key}
            fill="none"
            stroke={s.colour}
            stroke-width="2"
            stroke-dasharray={s.dash || undefined}
            points={days.map((d, i) => `${x(i).toFixed(1)},${y(d.Totals[s.key]).toFixed(1)}`).join(' ')}
          />
        ))}
      </svg>
      <figcaption>
        {SERIES.map((s) => (
          <span key={s.key} class="legend">
            <svg width="24" height="10" aria-hidden="true">
              <line
                x1="0"
                y1="5"
                x2="24"
                y2="5"
                stroke={s.colour}
                stroke-width="2"
                stroke-dasharray={s.dash || undefined}
              />
            </svg>{' '}
            {s.key}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
