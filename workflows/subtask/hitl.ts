/**
 * The human-in-the-loop part of a subtask's state, as types only: the state (state.ts) holds it
 * and the inbox's transitions (inbox.ts) change it, so neither imports the other for it.
 */
import type { InboxDecision, InboxKind, InboxReason, OnTimeout } from '../../core/inbox';
import type { SteeringNote, StepAnswer } from '../../contracts/step';

/** The item the loop waits on. */
export interface PendingItem {
  id: string;
  kind: InboxKind;
  reason: InboxReason;
  detail: Record<string, unknown>;
  onTimeout: OnTimeout;
  /** Epoch ms. */
  expiresAt: number;
  /** A question's text, for the answer handed to the next step. */
  question?: string;
}

/** The human-in-the-loop part of the state, fresh or from a carry. */
export interface HitlState {
  pending?: PendingItem;
  decision?: InboxDecision;
  approvedStart: boolean;
  spendApprovedStep?: number;
  approvedTools: string[];
  /** What the last completed step spent (costUsd): the planned spend of the next one. */
  lastCostUsd?: number;
  answer?: StepAnswer;
  messages: SteeringNote[];
  /** Items opened so far (this run). */
  opened: number;
}
