import { type JsonRpcPayload, JsonRpcProvider, type JsonRpcResult } from "ethers";

/**
 * ethers' JSON-RPC provider with the response body decoded by Node instead of ethers' own UTF-8
 * decoder, which is written in plain JavaScript: for an eth_getLogs answer of thousands of logs that
 * decoding alone took longer than the node took to answer. Connection, credentials, throttling
 * retries and error mapping stay ethers'.
 */
export class EvmRpcProvider extends JsonRpcProvider {
  override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    const request = this._getConnection();
    request.body = JSON.stringify(payload);
    request.setHeader("content-type", "application/json");
    const response = await request.send();
    response.assertOk();
    const body = response.body === null ? "" : Buffer.from(response.body).toString("utf8");
    // Typed as ethers types it: error entries pass through the same way and ethers maps them.
    const answer = JSON.parse(body) as JsonRpcResult | JsonRpcResult[];
    return Array.isArray(answer) ? answer : [answer];
  }
}
