import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { Redraw, REDRAW_MS } from '../../src/redraw';

test('the graph redraws every REDRAW_MS while the program runs, and once at the stop', () => {
  mock.timers.enable({ apis: ['setInterval'] });
  try {
    const calls: boolean[] = [];
    const r = new Redraw((live) => calls.push(live));
    r.toAdapter({ type: 'request', command: 'continue' });
    assert.ok(r.isRunning);
    mock.timers.tick(REDRAW_MS * 3);
    assert.deepEqual(calls, [true, true, true], 'three redraws in three intervals of running');
    // A second running request does not start a second timer.
    r.toAdapter({ type: 'request', command: 'next' });
    mock.timers.tick(REDRAW_MS);
    assert.equal(calls.length, 4);
    assert.equal(r.fromAdapter({ type: 'event', event: 'stopped' }), false);
    assert.equal(calls.at(-1), false, 'the stop redraws with the stopped state');
    mock.timers.tick(REDRAW_MS * 4);
    assert.equal(calls.length, 5, 'no redraw while stopped');
  } finally {
    mock.timers.reset();
  }
});

test('requests that do not run the program start no redraws; the end stops them', () => {
  mock.timers.enable({ apis: ['setInterval'] });
  try {
    const calls: boolean[] = [];
    const r = new Redraw((live) => calls.push(live));
    for (const command of ['variables', 'evaluate', 'stackTrace', 'opal/taskGraph']) {
      r.toAdapter({ type: 'request', command });
    }
    r.toAdapter({ type: 'response', command: 'continue' });
    mock.timers.tick(REDRAW_MS * 2);
    assert.deepEqual(calls, []);
    r.toAdapter({ type: 'request', command: 'reverseContinue' });
    mock.timers.tick(REDRAW_MS);
    assert.equal(r.fromAdapter({ type: 'event', event: 'terminated' }), true);
    mock.timers.tick(REDRAW_MS * 2);
    assert.deepEqual(calls, [true]);
    assert.ok(!r.isRunning);
  } finally {
    mock.timers.reset();
  }
});
