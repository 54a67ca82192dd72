package io.smslice.node.nvml;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A GPU's clocks and power at one moment, as NVML reports them; a field NVML could not read is -1.
 *
 * @param smClockMhz the SM clock now (nvmlDeviceGetClockInfo, NVML_CLOCK_SM)
 * @param powerMilliwatts the board's power draw (nvmlDeviceGetPowerUsage)
 * @param clockEventReasons why the clocks are below their maximum, NVML's bit mask
 *     (nvmlDeviceGetCurrentClocksEventReasons, formerly ...ThrottleReasons)
 * @param memoryBusyPercent how much of NVML's last sample period device memory was read or written
 *     (nvmlDeviceGetUtilizationRates' memory), the bandwidth pressure NVML can show
 */
public record GpuActivity(
    long smClockMhz, long powerMilliwatts, long clockEventReasons, int memoryBusyPercent) {
  /** Clock-event reasons that mean the power or thermal limit lowers the clocks. */
  public static final long POWER_OR_THERMAL = 0x4L | 0x8L | 0x20L | 0x40L | 0x80L;

  /** NVML's clock-event bits by the names the metrics give them. */
  public static final Map<String, Long> REASONS = reasons();

  private static Map<String, Long> reasons() {
    Map<String, Long> r = new LinkedHashMap<>();
    r.put("gpu_idle", 0x1L);
    r.put("applications_clocks_setting", 0x2L);
    r.put("sw_power_cap", 0x4L);
    r.put("hw_slowdown", 0x8L);
    r.put("sync_boost", 0x10L);
    r.put("sw_thermal_slowdown", 0x20L);
    r.put("hw_thermal_slowdown", 0x40L);
    r.put("hw_power_brake_slowdown", 0x80L);
    r.put("display_clock_setting", 0x100L);
    return java.util.Collections.unmodifiableMap(r);
  }

  /** Whether NVML read the reasons and one of them is the power or thermal limit. */
  public boolean powerOrThermalLimited() {
    return clockEventReasons > 0 && (clockEventReasons & POWER_OR_THERMAL) != 0;
  }
}
