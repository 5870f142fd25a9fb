'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import type { ReactNode } from 'react';
import { EncodingLoadStrip } from '../encoding-load/encoding-load-strip';
import { Button, FOCUS_RING } from '../ui/button';

const NAV = [
  { href: '/assets', label: 'Assets' },
  { href: '/uploads', label: 'Uploads' },
  { href: '/live-streams', label: 'Live streams' },
  { href: '/analytics', label: 'Analytics' },
  { href: '/access-tokens', label: 'Access tokens' },
  { href: '/webhooks', label: 'Webhooks' },
];

// Side navigation on wide screens, a wrapping top bar on phones; the encoding load shows in both.
export function AppShell({
  email,
  signOutAction,
  children,
}: {
  email: string;
  signOutAction: () => Promise<void>;
  children: ReactNode;
}) {
  const pathname = usePathname();
  return (
    <div className="min-h-screen md:flex">
      <header className="border-b border-zinc-200 bg-white md:w-56 md:shrink-0 md:border-r md:border-b-0">
        <div className="flex flex-wrap items-center gap-2 p-3 md:flex-col md:items-stretch md:p-4">
          <Link href="/assets" className={`mr-auto rounded text-lg font-semibold text-indigo-600 md:mr-0 md:mb-4 ${FOCUS_RING}`}>
            Keyframe
          </Link>
          <nav aria-label="Dashboard" className="order-last flex w-full gap-1 overflow-x-auto md:order-none md:flex-col">
            {NAV.map((item) => {
              const current = pathname === item.href || pathname.startsWith(`${item.href}/`);
              return (
                <Link
                  key={item.href}
                  href={item.href}
                  aria-current={current ? 'page' : undefined}
                  className={`rounded-md px-3 py-2 text-sm whitespace-nowrap ${FOCUS_RING} ${current ? 'bg-indigo-50 font-medium text-indigo-700' : 'text-zinc-700 hover:bg-zinc-100'}`}
                >
                  {item.label}
                </Link>
              );
            })}
          </nav>
          {/* Beside the logo on phones, under the navigation on wide screens: on every page, where an operator looks. */}
          <div className="min-w-0 md:mt-6">
            <EncodingLoadStrip />
          </div>
          <form action={signOutAction} className="flex items-center gap-2 md:mt-8 md:flex-col md:items-start">
            <span className="max-w-[12rem] truncate text-xs text-zinc-500" title={email}>
              {email}
            </span>
            <Button type="submit" variant="secondary" className="py-1 text-xs">
              Sign out
            </Button>
          </form>
        </div>
      </header>
      <main className="min-w-0 flex-1 p-4 md:p-8">{children}</main>
    </div>
  );
}
