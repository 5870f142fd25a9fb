import { useId, type ReactNode } from 'react';

// One of the preview player's menus (quality, audio, subtitles): a native <select>, so it works
// from the keyboard and on phones. The label sits beside it rather than around it, so the menu's
// name is the label alone ("Audio"), not the label plus the chosen option.
export function PlayerMenu({
  label,
  value,
  onChange,
  children,
}: {
  label: string;
  value: number;
  onChange: (value: number) => void;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <span className="inline-flex items-center gap-2">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <select
        id={id}
        className="max-w-[14rem] rounded-md border border-zinc-300 px-2 py-1 text-sm focus-visible:outline-2 focus-visible:outline-indigo-600"
        value={value}
        onChange={(event) => onChange(Number(event.target.value))}
      >
        {children}
      </select>
    </span>
  );
}
