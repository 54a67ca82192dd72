package io.smslice.examples.demo;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for the operator's webhook, made as the chart makes one: the operator
 * reads PEM files (tls.crt, tls.key). The JDK's keytool makes the key pair; the PEM files are
 * written from its keystore.
 */
record WebhookCertificate(Path certificate, Path key) {

  static WebhookCertificate create(Path directory) throws IOException, InterruptedException {
    Files.createDirectories(directory);
    Path store = directory.resolve("webhook.p12");
    char[] password = "smslice-demo".toCharArray();
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    Process process =
        new ProcessBuilder(
                List.of(
                    keytool.toString(),
                    "-genkeypair",
                    "-alias",
                    "webhook",
                    "-keyalg",
                    "EC",
                    "-groupname",
                    "secp256r1",
                    "-validity",
                    "2",
                    "-dname",
                    "CN=smslice-operator.default.svc",
                    "-ext",
                    "SAN=dns:smslice-operator.default.svc,dns:localhost,ip:127.0.0.1",
                    "-storetype",
                    "PKCS12",
                    "-keystore",
                    store.toString(),
                    "-storepass",
                    new String(password)))
            .redirectErrorStream(true)
            .start();
    String output = new String(process.getInputStream().readAllBytes());
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IOException("keytool could not make the webhook's certificate: " + output);
    }
    try (InputStream in = Files.newInputStream(store)) {
      KeyStore keyStore = KeyStore.getInstance("PKCS12");
      keyStore.load(in, password);
      Certificate certificate = keyStore.getCertificate("webhook");
      Key key = keyStore.getKey("webhook", password);
      Path crt = directory.resolve("tls.crt");
      Path pem = directory.resolve("tls.key");
      Files.writeString(crt, pem("CERTIFICATE", certificate.getEncoded()));
      Files.writeString(pem, pem("PRIVATE KEY", key.getEncoded()));
      return new WebhookCertificate(crt, pem);
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot read the webhook keystore " + store + ": " + e.getMessage(), e);
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
