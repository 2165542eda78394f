import { describe, expect, it } from 'vitest';
import { taskResult } from '../task-result';
import { agreement, ballotKey, ballotOf, canonicalJson, decide, jsonPointer, tally, type Ballot } from '../../core/vote-tally';

const result = taskResult;
const b = (voter: string, value: unknown, weight = 1): Ballot => ({ voter, key: ballotKey(value), value, weight });

describe('JSON pointer (RFC 6901)', () => {
  const doc = { foo: ['bar', 'baz'], '': 0, 'a/b': 1, 'm~n': 8, nested: { x: { y: null } } };
  it('resolves the RFC examples, escapes and array indexes', () => {
    expect(jsonPointer(doc, '')).toBe(doc);
    expect(jsonPointer(doc, '/foo')).toEqual(['bar', 'baz']);
    expect(jsonPointer(doc, '/foo/0')).toBe('bar');
    expect(jsonPointer(doc, '/')).toBe(0);
    expect(jsonPointer(doc, '/a~1b')).toBe(1);
    expect(jsonPointer(doc, '/m~0n')).toBe(8);
    expect(jsonPointer(doc, '/nested/x/y')).toBeNull();
  });
  it('is undefined for what is not there', () => {
    expect(jsonPointer(doc, '/missing')).toBeUndefined();
    expect(jsonPointer(doc, '/foo/2')).toBeUndefined();
    expect(jsonPointer(doc, '/foo/01')).toBeUndefined();
    expect(jsonPointer(doc, '/foo/-')).toBeUndefined();
    expect(jsonPointer(doc, '/nested/x/y/z')).toBeUndefined();
    expect(jsonPointer(doc, '/toString')).toBeUndefined();
    expect(jsonPointer(doc, 'foo')).toBeUndefined();
  });
});

describe('canonical ballots', () => {
  it('trims and case-folds strings', () => {
    expect(ballotKey('  Paris ')).toBe(ballotKey('paris'));
    expect(ballotKey('PARIS')).toBe(ballotKey('Paris'));
    expect(ballotKey('Paris')).not.toBe(ballotKey('Lyon'));
  });
  it('compares objects by canonical JSON with sorted keys, at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}');
    expect(ballotKey({ x: 1, y: 2 })).toBe(ballotKey({ y: 2, x: 1 }));
    expect(ballotKey([1, 2])).not.toBe(ballotKey([2, 1]));
  });
  it('keeps types apart: 1 is not "1", true is not "true"', () => {
    expect(ballotKey(1)).not.toBe(ballotKey('1'));
    expect(ballotKey(true)).not.toBe(ballotKey('true'));
  });
  it('takes the ballot from data or from data at the key; failed voters and missing values cast none', () => {
    expect(ballotOf(result('v', 'yes'))).toMatchObject({ voter: 'v', value: 'yes', weight: 0.9 });
    expect(ballotOf(result('v', { answer: { city: 'Paris' } }), '/answer/city')).toMatchObject({ value: 'Paris' });
    expect(ballotOf(result('v', { other: 1 }), '/answer')).toBeNull();
    expect(ballotOf(result('v', undefined))).toBeNull();
    expect(ballotOf(result('v', 'yes', { status: 'failure', failureReason: 'agent_error' }))).toBeNull();
    expect(ballotOf(result('v', 'yes', { status: 'partial', failureReason: 'stopped' }))).not.toBeNull();
  });
});

describe('tally', () => {
  it('groups equal ballots, keeps the first value as given, orders by count then weight', () => {
    const t = tally([b('1', 'Paris', 0.9), b('2', 'lyon', 0.8), b('3', ' paris', 0.7), b('4', 'Nice', 1), b('5', 'Lyon', 0.1)]);
    expect(t.map((e) => [e.ballot, e.count])).toEqual([
      ['Paris', 2],
      ['lyon', 2],
      ['Nice', 1],
    ]);
    expect(t[0].weight).toBeCloseTo(1.6);
  });
});

describe('decide', () => {
  it('majority: more than half of all voters, decided as soon as it is reached', () => {
    const ballots = [b('1', 'a'), b('2', 'a'), b('3', 'a')];
    expect(decide(ballots.slice(0, 2), 'majority', 5, 3)).toMatchObject({ final: false, winner: null });
    const d = decide(ballots, 'majority', 5, 2);
    expect(d).toMatchObject({ final: true, winner: { ballot: 'a', count: 3 } });
    expect(agreement(d)).toBe(1);
  });
  it('majority: final without a winner once no ballot can reach the bar', () => {
    // 5 voters: a=2, b=2, one pending: a could still reach 3
    expect(decide([b('1', 'a'), b('2', 'a'), b('3', 'b'), b('4', 'b')], 'majority', 5, 1).final).toBe(false);
    // 4 voters: a=2, b=1, c=0, one pending... a could reach 3 > 2
    expect(decide([b('1', 'a'), b('2', 'a'), b('3', 'b')], 'majority', 4, 1).final).toBe(false);
    // 5 voters: a, b, c, d, one pending: best is 1 + 1 = 2, never more than 2.5
    expect(decide([b('1', 'a'), b('2', 'b'), b('3', 'c'), b('4', 'd')], 'majority', 5, 1)).toMatchObject({ final: true, winner: null });
  });
  it('majority: a 2-2 tie has no winner and keeps the tally', () => {
    const d = decide([b('1', 'a'), b('2', 'b'), b('3', 'a'), b('4', 'b')], 'majority', 4, 0);
    expect(d.winner).toBeNull();
    expect(d.tally.map((e) => e.count)).toEqual([2, 2]);
    expect(agreement(d)).toBe(0);
  });
  it('majority counts all voters, failed ones included: 2 of 4 answered alike is not a majority', () => {
    expect(decide([b('1', 'a'), b('2', 'a')], 'majority', 4, 0).winner).toBeNull();
    expect(decide([b('1', 'a'), b('2', 'a'), b('3', 'b')], 'majority', 3, 0)).toMatchObject({ winner: { ballot: 'a' } });
  });
  it('weighted: confidence decides, against a bar of half the voters (each could weigh 1)', () => {
    expect(decide([b('1', 'x', 0.9), b('2', 'x', 0.9), b('3', 'y', 0.9)], 'weighted', 3, 0).winner?.ballot).toBe('x');
    expect(decide([b('1', 'x', 0.5), b('2', 'x', 0.5), b('3', 'y', 0.9)], 'weighted', 3, 0).winner).toBeNull();
    expect(decide([b('1', 'x', 0.5), b('2', 'x', 0.5), b('3', 'x', 0.5)], 'weighted', 3, 0).winner).toBeNull();
    // exactly half the possible weight is not more than half, whatever float dust says
    expect(decide([b('1', 'x', 0.75), b('2', 'x', 0.75)], 'weighted', 3, 0).winner).toBeNull();
    expect(decide([b('1', 'x', 0.1), b('2', 'x', 0.2), b('3', 'x', 0.7)], 'weighted', 2, 0).winner).toBeNull();
  });
  const share = { shareOfCast: true };
  it('weighted by share of the weight cast: one voter at 0.95 beats two at 0.1; a tie at the threshold has no winner', () => {
    const issueCase = [b('1', 'b', 0.95), b('2', 'a', 0.1), b('3', 'a', 0.1)];
    expect(decide(issueCase, 'weighted', 3, 0).winner).toBeNull(); // the old bar: 0.95 is not more than half of 3 voters
    expect(decide(issueCase, 'weighted', 3, 0, share)).toMatchObject({ final: true, winner: { ballot: 'b' } });
    expect(decide([b('1', 'x', 0.5), b('2', 'y', 0.5)], 'weighted', 2, 0, share).winner).toBeNull();
    expect(decide([b('1', 'x', 0.3), b('2', 'x', 0.3), b('3', 'y', 0.6)], 'weighted', 3, 0, share).winner).toBeNull();
    // a stricter threshold: 0.6 of 1.0 passes 0.5, not 0.7
    expect(decide([b('1', 'x', 0.6), b('2', 'y', 0.4)], 'weighted', 2, 0, share).winner?.ballot).toBe('x');
    expect(decide([b('1', 'x', 0.6), b('2', 'y', 0.4)], 'weighted', 2, 0, { ...share, threshold: 0.7 }).winner).toBeNull();
    // nothing cast (every voter at confidence 0): no winner
    expect(decide([b('1', 'x', 0), b('2', 'x', 0)], 'weighted', 2, 0, share).winner).toBeNull();
  });
  it('weighted by share: early once pending voters can no longer overturn it, either way', () => {
    // b 0.95 with two pending: they could bring 2 to a, and 0.95 of 2.95 is not a half yet
    expect(decide([b('1', 'b', 0.95)], 'weighted', 3, 2, share)).toMatchObject({ final: false, winner: null });
    // x 3 × 0.9 = 2.7, one pending: 2.7 of at most 3.7 is more than half whatever it says
    expect(decide([b('1', 'x', 0.9), b('2', 'x', 0.9), b('3', 'x', 0.9)], 'weighted', 4, 1, share)).toMatchObject({
      final: true,
      winner: { ballot: 'x' },
    });
    // an even split of 4 × 1 with one pending: y could still reach 3 of 5
    expect(decide([b('1', 'x'), b('2', 'x'), b('3', 'y'), b('4', 'y')], 'weighted', 5, 1, share)).toMatchObject({ final: false });
    // spread thin: no ballot, even a new one, can reach a 0.9 share with one pending voter
    expect(decide([b('1', 'x'), b('2', 'y'), b('3', 'z')], 'weighted', 4, 1, { ...share, threshold: 0.9 })).toMatchObject({
      final: true,
      winner: null,
    });
  });
  it('weighted: decided early once a ballot passes the bar, or once none can', () => {
    expect(decide([b('1', 'x', 1), b('2', 'x', 0.9), b('3', 'x', 0.8)], 'weighted', 5, 2)).toMatchObject({
      final: true,
      winner: { ballot: 'x' },
    });
    // x has 1.8, two pending voters could bring it to 3.8 > 2.5
    expect(decide([b('1', 'x', 0.9), b('2', 'x', 0.9), b('3', 'y', 0.2)], 'weighted', 5, 2)).toMatchObject({ final: false });
    // x has 0.4, two pending voters bring it to 2.4 at best: never more than 2.5
    expect(decide([b('1', 'x', 0.1), b('2', 'x', 0.1), b('3', 'x', 0.2)], 'weighted', 5, 2)).toMatchObject({ final: true, winner: null });
  });
  it('unanimous: all who answered agree, at least one answered; one dissent decides at once', () => {
    expect(decide([b('1', 'a'), b('2', 'A ')], 'unanimous', 3, 1)).toMatchObject({ final: false });
    expect(decide([b('1', 'a'), b('2', 'A ')], 'unanimous', 3, 0)).toMatchObject({ final: true, winner: { ballot: 'a', count: 2 } });
    expect(decide([b('1', 'a'), b('2', 'b')], 'unanimous', 5, 3)).toMatchObject({ final: true, winner: null });
    expect(decide([], 'unanimous', 2, 0)).toMatchObject({ final: true, winner: null });
  });
});
