'use client';

import { ANALYTICS_TIMEFRAMES, type AnalyticsTimeframe } from '@/lib/schemas/dashboard-analytics';
import { TIMEFRAME_LABELS } from './analytics-format';

// A radio group shown as segmented buttons: one tab stop, arrow keys move between timeframes.
export function TimeframePicker({ value, onChange }: { value: AnalyticsTimeframe; onChange: (timeframe: AnalyticsTimeframe) => void }) {
  return (
    <fieldset className="min-w-0">
      <legend className="sr-only">Timeframe</legend>
      <div className="inline-flex flex-wrap overflow-hidden rounded-md border border-zinc-300 bg-white text-sm">
        {ANALYTICS_TIMEFRAMES.map((timeframe) => (
          <label
            key={timeframe}
            className="cursor-pointer border-r border-zinc-300 px-3 py-1.5 last:border-r-0 has-checked:bg-indigo-600 has-checked:text-white has-focus-visible:outline-2 has-focus-visible:-outline-offset-2 has-focus-visible:outline-indigo-600"
          >
            <input
              type="radio"
              name="analytics-timeframe"
              value={timeframe}
              checked={value === timeframe}
              onChange={() => onChange(timeframe)}
              className="sr-only"
            />
            {TIMEFRAME_LABELS[timeframe]}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
