import { badRequest } from "@ramp/contracts";
import { isDuplicateKey, sha256Hex } from "@ramp/runtime";
import { type Db, ObjectId } from "mongodb";
import type { IdentityProvider } from "./identity-provider.ts";

interface KycDoc {
  _id: string; // hash of the BVN; the BVN itself is never stored
  userId: string;
  fullName: string;
  businessIds: string[];
  createdAt: Date;
}

export const BVN_NOT_VERIFIED = "BVN could not be verified";

/** A known BVN maps to its KYC record; a new one is verified and registered. */
export function createKyc(deps: { db: Db; provider: IdentityProvider; pepper: string }) {
  const col = deps.db.collection<KycDoc>("kyc_records");
  const key = (bvn: string) => sha256Hex(`${deps.pepper}:${bvn}`);
  return {
    async verify(businessId: string, bvn: string): Promise<{ userId: string; fullName: string }> {
      const id = key(bvn);
      const known = await col.findOneAndUpdate(
        { _id: id },
        { $addToSet: { businessIds: businessId } },
        { returnDocument: "after" },
      );
      if (known) return { userId: known.userId, fullName: known.fullName };
      const person = await deps.provider.verifyBvn(bvn);
      if (!person) throw badRequest(BVN_NOT_VERIFIED);
      const doc: KycDoc = {
        _id: id,
        userId: new ObjectId().toHexString(),
        fullName: `${person.firstName} ${person.lastName}`,
        businessIds: [businessId],
        createdAt: new Date(),
      };
      try {
        await col.insertOne(doc);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        return this.verify(businessId, bvn);
      }
      return { userId: doc.userId, fullName: doc.fullName };
    },
  };
}
