package io.ecrepair.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/** A small PNG bar chart (java.awt, headless): one bar per label, a value printed on each. */
public final class BarChart {
  /** One bar: label under it, value, colour group (0 = ours, 1 = baseline, 2 = physical floor). */
  public record Bar(String label, double value, String valueText, int group) {}

  private static final Color[] COLORS = {new Color(0x2b8a3e), new Color(0x868e96), new Color(0x1971c2)};

  private BarChart() {}

  public static void write(Path file, String title, String yAxis, List<Bar> bars, List<String> legend)
      throws IOException {
    write(file, title, yAxis, bars, legend, 110, 40);
  }

  /** Narrower bars and gaps for charts with many bars (e.g. one pair per node). */
  public static void write(Path file, String title, String yAxis, List<Bar> bars, List<String> legend, int barWidth,
                           int gap) throws IOException {
    System.setProperty("java.awt.headless", "true");
    int left = 80;
    int top = 70;
    int plotHeight = 340;
    int width = left + bars.size() * (barWidth + gap) + gap;
    int height = top + plotHeight + 90;
    BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, width, height);
      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
      g.drawString(title, left, 30);
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
      for (int i = 0; i < legend.size(); i++) {
        g.setColor(COLORS[i % COLORS.length]);
        g.fillRect(left + i * 260, 42, 12, 12);
        g.setColor(Color.BLACK);
        g.drawString(legend.get(i), left + i * 260 + 18, 53);
      }
      double max = bars.stream().mapToDouble(Bar::value).max().orElse(1);
      max = max <= 0 ? 1 : max * 1.15;
      int baseY = top + plotHeight;
      g.setColor(Color.BLACK);
      g.setStroke(new BasicStroke(1));
      g.drawLine(left, top, left, baseY);
      g.drawLine(left, baseY, width - gap / 2, baseY);
      for (int t = 0; t <= 4; t++) {
        double v = max * t / 4;
        int y = baseY - (int) (plotHeight * t / 4.0);
        g.setColor(new Color(0xdee2e6));
        g.drawLine(left + 1, y, width - gap / 2, y);
        g.setColor(Color.BLACK);
        String s = String.format(Locale.ROOT, "%.1f", v);
        g.drawString(s, left - 8 - g.getFontMetrics().stringWidth(s), y + 4);
      }
      Graphics2D rotated = (Graphics2D) g.create();
      rotated.rotate(-Math.PI / 2);
      rotated.drawString(yAxis, -(top + plotHeight / 2 + rotated.getFontMetrics().stringWidth(yAxis) / 2), 20);
      rotated.dispose();
      FontMetrics fm = g.getFontMetrics();
      for (int i = 0; i < bars.size(); i++) {
        Bar b = bars.get(i);
        int x = left + gap + i * (barWidth + gap);
        int h = (int) Math.round(plotHeight * b.value() / max);
        g.setColor(COLORS[b.group() % COLORS.length]);
        g.fillRect(x, baseY - h, barWidth, h);
        g.setColor(Color.BLACK);
        g.drawString(b.valueText(), x + (barWidth - fm.stringWidth(b.valueText())) / 2, baseY - h - 6);
        String[] lines = b.label().split("\n");
        for (int l = 0; l < lines.length; l++) {
          g.drawString(lines[l], x + (barWidth - fm.stringWidth(lines[l])) / 2, baseY + 18 + 15 * l);
        }
      }
    } finally {
      g.dispose();
    }
    if (!ImageIO.write(img, "png", file.toFile())) {
      throw new IOException("no PNG writer in this JVM");
    }
  }
}
