#include "shape.hpp"

namespace geo {

// describe names the area
std::string Shape::describe() const {
    return "area " + std::to_string(area());
}

double total_area(const Shape **shapes, int n) {
    double sum = 0;
    for (int i = 0; i < n; i++) {
        sum += shapes[i]->area();
    }
    return sum;
}

}  // namespace geo
