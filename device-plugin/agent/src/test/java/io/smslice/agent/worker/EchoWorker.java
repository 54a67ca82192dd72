package io.smslice.agent.worker;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/** A stand-in worker: says ready, then echoes each line, taking 1.5 s over lines saying "slow". */
public final class EchoWorker {
  private EchoWorker() {}

  public static void main(String[] args) throws Exception {
    System.out.println("ready 0");
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.endsWith(" stop")) {
        return;
      }
      if (line.contains("slow")) {
        Thread.sleep(1500);
      }
      System.out.println(line);
      System.out.flush();
    }
  }
}
