// A log-log line chart as a standalone SVG: pass time against N. No dependency: a few
// dozen elements written as text. Extrapolated points are hollow on a dashed line.

export interface Point {
  x: number;
  y: number;
  extrapolated?: boolean;
}

export interface Series {
  name: string;
  color: string;
  points: Point[];
  /** Dashed all along (e.g. a reference line rather than a pass). */
  dashed?: boolean;
}

export interface ChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  width?: number;
  height?: number;
}

const MARGIN = { top: 48, right: 24, bottom: 56, left: 72 };
const LEGEND_WIDTH = 250;

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Whole decades that cover the values. */
function decades(values: number[]): { low: number; high: number } {
  const positive = values.filter((v) => v > 0);
  return {
    low: Math.floor(Math.log10(Math.min(...positive))),
    high: Math.ceil(Math.log10(Math.max(...positive))),
  };
}

function formatTick(value: number, unit: 'n' | 'ms'): string {
  if (unit === 'n') return value >= 1000 ? `${value / 1000}k` : String(value);
  if (value >= 1000) return `${value / 1000} s`;
  return `${value} ms`;
}

export function logLogChart(options: ChartOptions): string {
  const width = options.width ?? 760;
  const height = options.height ?? 460;
  const plotLeft = MARGIN.left;
  const plotRight = width - MARGIN.right - LEGEND_WIDTH;
  const plotTop = MARGIN.top;
  const plotBottom = height - MARGIN.bottom;
  const all = options.series.flatMap((s) => s.points);
  const xs = decades(all.map((p) => p.x));
  const ys = decades(all.map((p) => p.y));
  const sx = (x: number) => plotLeft + ((Math.log10(x) - xs.low) / (xs.high - xs.low || 1)) * (plotRight - plotLeft);
  const sy = (y: number) => plotBottom - ((Math.log10(y) - ys.low) / (ys.high - ys.low || 1)) * (plotBottom - plotTop);
  const f = (v: number) => v.toFixed(1);

  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="-apple-system, Segoe UI, Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${plotLeft}" y="24" font-size="15" font-weight="600" fill="#222">${escapeXml(options.title)}</text>`,
  );

  // Grid: decades solid, 2× and 5× faint.
  for (let d = xs.low; d <= xs.high; d++) {
    const x = sx(10 ** d);
    parts.push(`<line x1="${f(x)}" y1="${plotTop}" x2="${f(x)}" y2="${plotBottom}" stroke="#ddd"/>`);
    parts.push(
      `<text x="${f(x)}" y="${plotBottom + 18}" text-anchor="middle" fill="#444">${formatTick(10 ** d, 'n')}</text>`,
    );
  }
  for (let d = ys.low; d <= ys.high; d++) {
    const y = sy(10 ** d);
    parts.push(`<line x1="${plotLeft}" y1="${f(y)}" x2="${plotRight}" y2="${f(y)}" stroke="#ddd"/>`);
    parts.push(
      `<text x="${plotLeft - 8}" y="${f(y + 4)}" text-anchor="end" fill="#444">${formatTick(10 ** d, 'ms')}</text>`,
    );
    if (d < ys.high) {
      for (const m of [2, 5]) {
        const minor = sy(m * 10 ** d);
        parts.push(`<line x1="${plotLeft}" y1="${f(minor)}" x2="${plotRight}" y2="${f(minor)}" stroke="#f0f0f0"/>`);
      }
    }
  }
  parts.push(
    `<rect x="${plotLeft}" y="${plotTop}" width="${plotRight - plotLeft}" height="${plotBottom - plotTop}" fill="none" stroke="#999"/>`,
  );
  parts.push(
    `<text x="${(plotLeft + plotRight) / 2}" y="${height - 16}" text-anchor="middle" fill="#222">${escapeXml(options.xLabel)}</text>`,
    `<text transform="translate(18 ${(plotTop + plotBottom) / 2}) rotate(-90)" text-anchor="middle" fill="#222">${escapeXml(options.yLabel)}</text>`,
  );

  for (const series of options.series) {
    const points = [...series.points].sort((a, b) => a.x - b.x);
    for (let i = 1; i < points.length; i++) {
      const [a, b] = [points[i - 1], points[i]];
      const dash = series.dashed || b.extrapolated ? ' stroke-dasharray="6 4"' : '';
      parts.push(
        `<line x1="${f(sx(a.x))}" y1="${f(sy(a.y))}" x2="${f(sx(b.x))}" y2="${f(sy(b.y))}" stroke="${series.color}" stroke-width="2"${dash}/>`,
      );
    }
    for (const p of points) {
      const fill = p.extrapolated ? '#ffffff' : series.color;
      parts.push(
        `<circle cx="${f(sx(p.x))}" cy="${f(sy(p.y))}" r="4" fill="${fill}" stroke="${series.color}" stroke-width="2"><title>${escapeXml(
          `${series.name}, N=${p.x}: ${p.y >= 1000 ? `${(p.y / 1000).toFixed(2)} s` : `${Math.round(p.y)} ms`}${p.extrapolated ? ' (extrapolated)' : ''}`,
        )}</title></circle>`,
      );
    }
  }

  // Legend.
  const legendX = plotRight + 20;
  let legendY = plotTop + 8;
  for (const series of options.series) {
    const dash = series.dashed ? ' stroke-dasharray="6 4"' : '';
    parts.push(
      `<line x1="${legendX}" y1="${legendY}" x2="${legendX + 26}" y2="${legendY}" stroke="${series.color}" stroke-width="2"${dash}/>`,
      `<circle cx="${legendX + 13}" cy="${legendY}" r="4" fill="${series.color}"/>`,
      `<text x="${legendX + 34}" y="${legendY + 4}" fill="#222">${escapeXml(series.name)}</text>`,
    );
    legendY += 22;
  }
  if (all.some((p) => p.extrapolated)) {
    parts.push(
      `<line x1="${legendX}" y1="${legendY}" x2="${legendX + 26}" y2="${legendY}" stroke="#666" stroke-width="2" stroke-dasharray="6 4"/>`,
      `<circle cx="${legendX + 13}" cy="${legendY}" r="4" fill="#fff" stroke="#666" stroke-width="2"/>`,
      `<text x="${legendX + 34}" y="${legendY + 4}" fill="#222">extrapolated (not measured)</text>`,
    );
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
