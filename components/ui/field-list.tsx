import type { ReactNode } from 'react';

export type FieldRow = [label: string, value: ReactNode];

// Label/value pairs of a detail page: stacked on phones, two columns from `sm` up.
export function FieldList({ rows }: { rows: FieldRow[] }) {
  return (
    <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_minmax(0,1fr)]">
      {rows.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="font-medium text-zinc-600">{label}</dt>
          <dd className="min-w-0 wrap-anywhere">{value}</dd>
        </div>
      ))}
    </dl>
  );
}
