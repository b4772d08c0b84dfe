// Stock tlock-js (npm), driven by tests/timelock/test_interop.py against a drand relay URL.
//   node tlock_js_peer.cjs NODE_MODULES encrypt URL CHAIN_HASH PUBLIC_KEY ROUND IN OUT
//   node tlock_js_peer.cjs NODE_MODULES decrypt URL CHAIN_HASH PUBLIC_KEY -    IN OUT
// The chain info is pinned (chainVerificationParams) and every beacon is verified by drand-client.
const fs = require("fs")
const [modules, mode, url, chainHash, publicKey, round, input, output] = process.argv.slice(2)
const tlock = require(`${modules}/tlock-js`)
const {HttpChainClient, HttpCachingChain} = require(`${modules}/drand-client`)
const options = {disableBeaconVerification: false, noCache: false, chainVerificationParams: {chainHash, publicKey}}
const client = new HttpChainClient(new HttpCachingChain(url, options), options)
async function main() {
    if (mode === "encrypt") {
        fs.writeFileSync(output, await tlock.timelockEncrypt(Number(round), fs.readFileSync(input), client))
    } else {
        fs.writeFileSync(output, await tlock.timelockDecrypt(fs.readFileSync(input, "utf8"), client))
    }
}
main().catch(err => { console.error(`tlock-js: ${err}`); process.exit(1) })
