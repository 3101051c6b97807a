import {
  AppError,
  type ConsoleListQuery,
  type ConsoleUser,
  type MemberRole,
  type OperatorRole,
  type PersonKind,
} from "@ramp/contracts";
import { decryptSecret, encryptSecret, isEncryptedSecret, pageById } from "@ramp/runtime";
import { type Collection, type Db, MongoServerError, ObjectId } from "mongodb";
import { hashPassword } from "./passwords.ts";

/**
 * Operators and members in one collection: an email is one person, so sign-in is one lookup and
 * no address can be an operator and a member at once.
 */
export interface PersonDoc {
  _id: ObjectId;
  email: string;
  kind: PersonKind;
  role: OperatorRole | MemberRole;
  businessId: string | null;
  passwordHash: string;
  /**
   * Base32; set once a code made from `pendingTotpSecret` was confirmed. Both are stored encrypted
   * (CONSOLE_SECRET_KEY) and handed out of the store in the clear.
   */
  totpSecret: string | null;
  pendingTotpSecret: string | null;
  /** The time step of the last code accepted at sign-in: a code works once, never replayed. */
  totpLastStep?: number;
  createdAt: Date;
}

export type NewPerson =
  | { kind: "operator"; email: string; password: string; role: OperatorRole }
  | { kind: "member"; email: string; password: string; role: MemberRole; businessId: string };

export const userOf = (p: PersonDoc): ConsoleUser => ({
  id: p._id.toHexString(),
  email: p.email,
  kind: p.kind,
  role: p.role,
  businessId: p.businessId,
  totpEnabled: p.totpSecret !== null,
});

export interface PeopleStore {
  init(): Promise<void>;
  create(person: NewPerson): Promise<PersonDoc>;
  byEmail(email: string): Promise<PersonDoc | null>;
  byId(id: string): Promise<PersonDoc | null>;
  list(
    filter: { kind: PersonKind; businessId?: string },
    page: ConsoleListQuery,
  ): Promise<{ data: PersonDoc[]; nextCursor: string }>;
  /** Removes the person when it matches `scope`; false when there is no such person in it. */
  remove(id: string, scope: { kind: PersonKind; businessId?: string }): Promise<PersonDoc | null>;
  setPendingTotp(id: string, secret: string): Promise<void>;
  /** Takes the code's time step if no later or equal one was used: false means a replayed code. */
  useTotpStep(id: ObjectId, step: number): Promise<boolean>;
  /** Makes the pending secret the active one; false when there was none. */
  enableTotp(id: string, secret: string): Promise<boolean>;
}

const isDuplicate = (err: unknown) => err instanceof MongoServerError && err.code === 11000;

/** `secretKey` encrypts TOTP secrets at rest: a copy of the database alone cannot make codes. */
export function createPeopleStore(db: Db, secretKey: Buffer): PeopleStore {
  const people: Collection<PersonDoc> = db.collection("people");
  const oid = (id: string) => (ObjectId.isValid(id) ? new ObjectId(id) : null);
  // A secret stored before encryption was added is read as it is, and encrypted when next written.
  const clear = (stored: string | null) =>
    stored === null || !isEncryptedSecret(stored) ? stored : decryptSecret(secretKey, stored);
  const revealed = (doc: PersonDoc | null): PersonDoc | null =>
    doc && { ...doc, totpSecret: clear(doc.totpSecret), pendingTotpSecret: clear(doc.pendingTotpSecret) };
  return {
    async init() {
      await people.createIndex({ email: 1 }, { unique: true });
      await people.createIndex({ kind: 1, businessId: 1, _id: -1 });
    },

    async create(person) {
      const doc: PersonDoc = {
        _id: new ObjectId(),
        email: person.email,
        kind: person.kind,
        role: person.role,
        businessId: person.kind === "member" ? person.businessId : null,
        passwordHash: await hashPassword(person.password),
        totpSecret: null,
        pendingTotpSecret: null,
        createdAt: new Date(),
      };
      try {
        await people.insertOne(doc);
      } catch (err) {
        if (isDuplicate(err)) throw new AppError("CONFLICT", "A person with this email already exists");
        throw err;
      }
      return doc;
    },

    byEmail: async (email) => revealed(await people.findOne({ email: email.trim().toLowerCase() })),

    async byId(id) {
      const _id = oid(id);
      return _id ? revealed(await people.findOne({ _id })) : null;
    },

    list: (filter, page) =>
      pageById(
        people,
        { kind: filter.kind, ...(filter.businessId ? { businessId: filter.businessId } : {}) },
        page,
        (d) => revealed(d) as PersonDoc,
      ),

    async remove(id, scope) {
      const _id = oid(id);
      if (!_id) return null;
      const removed = await people.findOneAndDelete({
        _id,
        kind: scope.kind,
        ...(scope.businessId ? { businessId: scope.businessId } : {}),
      });
      return revealed(removed);
    },

    async setPendingTotp(id, secret) {
      const sealed = encryptSecret(secretKey, secret);
      await people.updateOne({ _id: new ObjectId(id) }, { $set: { pendingTotpSecret: sealed } });
    },

    async useTotpStep(_id, step) {
      const r = await people.updateOne(
        { _id, $or: [{ totpLastStep: { $exists: false } }, { totpLastStep: { $lt: step } }] },
        { $set: { totpLastStep: step } },
      );
      return r.modifiedCount === 1;
    },

    async enableTotp(id, secret) {
      const _id = new ObjectId(id);
      // Encryption is randomised, so the pending secret is matched in the clear, then by its stored
      // value: an enrolment started again meanwhile makes this one fail rather than enable the wrong one.
      const stored = (await people.findOne({ _id }, { projection: { pendingTotpSecret: 1 } }))
        ?.pendingTotpSecret;
      if (!stored || clear(stored) !== secret) return false;
      const sealed = isEncryptedSecret(stored) ? stored : encryptSecret(secretKey, stored);
      const r = await people.updateOne(
        { _id, pendingTotpSecret: stored },
        { $set: { totpSecret: sealed, pendingTotpSecret: null } },
      );
      return r.modifiedCount === 1;
    },
  };
}
