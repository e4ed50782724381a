package io.blackboard.platform.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/** Bearer token material: random tokens, and the SHA-256 that is all the server keeps of them. */
public final class Tokens {

    /** Prefix of the tokens bound to one worker, handed out at registration. */
    public static final String WORKER_PREFIX = "bbw_";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final MessageDigest SHA256 = sha256Digest();

    private Tokens() {
    }

    /** A new token: the prefix and 256 random bits, URL-safe. */
    public static String generate(String prefix) {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return prefix + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * A copy of one digest per call: looking the algorithm up (MessageDigest.getInstance) on every
     * request cost more than the hash itself, about 2% of the server's CPU per create (BENCHMARKS.md).
     */
    public static byte[] sha256(String token) {
        MessageDigest digest;
        try {
            digest = (MessageDigest) SHA256.clone();
        } catch (CloneNotSupportedException e) {
            digest = sha256Digest(); // a provider whose digests cannot be copied (some FIPS set-ups)
        }
        return digest.digest(token.getBytes(StandardCharsets.UTF_8));
    }

    private static MessageDigest sha256Digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
