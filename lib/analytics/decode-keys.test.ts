import { describe, expect, test } from 'vitest';
import { decodeEventKeys, decodeKey } from './decode-keys';
import { FIRST_WORDS, OTHER_WORDS } from './key-words';
import { encodeKey } from './mux-embed-beacons';

describe('decodeKey', () => {
  test('the examples of the reference', () => {
    const examples: Record<string, string> = {
      ake: 'env_key',
      xid: 'view_id',
      e: 'event',
      uti: 'viewer_time',
      pphti: 'player_playhead_time',
      xsqno: 'view_sequence_number',
      psqno: 'player_sequence_number',
      pinid: 'player_instance_id',
      vid: 'video_id',
      vtt: 'video_title',
      vsour: 'video_source_url',
      wur: 'page_url',
      mvrid: 'mux_viewer_id',
      sid: 'session_id',
      xwati: 'view_watch_time',
      xtitofifr: 'view_time_to_first_frame',
      xredu: 'view_rebuffer_duration',
      xpntimscv: 'view_playing_time_ms_cumulative',
      percd: 'player_error_code',
      c1: 'custom_1',
      c10: 'custom_10',
      bdm: 'beacon_domain',
      mapve: 'mux_api_version',
      memve: 'mux_embed_version',
    };
    for (const [key, name] of Object.entries(examples)) expect(decodeKey(key)).toBe(name);
  });

  test('words the dictionary lacks come back as they were sent', () => {
    expect(decodeKey('x_frobnicate_co')).toBe('view_frobnicate_count');
    expect(decodeKey('widget_nm')).toBe('widget_name');
    expect(decodeKey('v_custom__thing_')).toBe('video_custom_thing');
  });

  test('a key that is no abbreviation is kept as sent', () => {
    expect(decodeKey('Zzz')).toBe('Zzz');
    expect(decodeKey('xq')).toBe('xq');
    expect(decodeKey('xid_q')).toBe('xid_q');
  });

  test('every dictionary word round-trips through the encoder, in every position', () => {
    for (const first of Object.values(FIRST_WORDS)) {
      for (const word of Object.values(OTHER_WORDS)) {
        const key = `${first}_${word}_${word}_7`;
        expect(decodeKey(encodeKey(key))).toBe(key);
      }
    }
  });

  test('realistic mux-embed keys round-trip', () => {
    const keys = [
      'view_rebuffer_percentage',
      'player_software_version',
      'player_mux_plugin_name',
      'viewer_application_name',
      'viewer_os_family',
      'viewer_device_category',
      'video_source_height',
      'view_seek_duration',
      'player_error_context',
      'view_aggregate_startup_time',
      'view_max_request_latency',
      'player_init_time',
      'mux_sample_number',
      'view_session_id',
    ];
    for (const key of keys) expect(decodeKey(encodeKey(key))).toBe(key);
  });
});

describe('decodeEventKeys', () => {
  test('decodes every key and keeps the values', () => {
    expect(decodeEventKeys({ e: 'viewstart', xid: 'abc', xsqno: 1, vsour: 'https://x/y.m3u8' })).toEqual({
      event: 'viewstart',
      view_id: 'abc',
      view_sequence_number: 1,
      video_source_url: 'https://x/y.m3u8',
    });
  });
});
